package claim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/text"
)

// What a clone keeps of claims, in <common dir>/wt/: its machine id, when
// it first saw each other machine's claim commit (staleness is judged by
// this clock alone, never by another machine's), and when it last sent a
// heartbeat.

// MachineID is configured when set (wt.machineId: the user's own name,
// kept as it is), else the id generated for this clone and kept in
// <common dir>/wt/machine-id: `new` writes no git config, which is how
// the two are told apart. A generated id is bound to the clone (SPEC
// §19): the file keeps, on a second line, the common dir's device and
// inode and the host's boot id. A copy of the clone (cp -a, a VM image)
// sees another binding, makes a new id and says so once; without that,
// the copy and the original would both hold every claim. Processes that
// make or replace the id at once agree: they take turns on a lock file.
func MachineID(commonDir, configured string, say func(format string, args ...any)) (string, error) {
	if configured != "" {
		return configured, nil
	}
	return boundID(filepath.Join(commonDir, "wt", "machine-id"), binding(commonDir), say)
}

// boundID is the id in the file at path when the file is bound to bind,
// else a new one bound to it, said once.
func boundID(path, bind string, say func(format string, args ...any)) (string, error) {
	return bound(path, bind, newID, func(old, id string) {
		say("this clone's machine id is now %s, no longer %s: the clone was copied or moved, or the machine restarted (%s). "+
			"Claims held as %s are another machine's to it from now on; to keep one id for good, git config wt.machineId NAME",
			id, text.Terminal(old), path, text.Terminal(old))
	})
}

// Key is this clone's secret, which proves the claims it took (Proof):
// kept in <common dir>/wt/claim-key, mode 0600, and never sent anywhere.
// A machine id is no secret — every claim shows it, and anything that
// can write the git dir can plant another machine's in the machine-id
// file (SPEC §19) — so a claim is this clone's only when it also carries
// a proof made with this key, which another machine does not have. The
// key is bound to the clone's common dir (device and inode) as a generated
// machine id is: a copy of the clone makes its own, and no longer counts
// the original's claims as its. Unlike the id, it stays across restarts,
// so that an id set with wt.machineId keeps its claims then.
func Key(commonDir string) (string, error) {
	return bound(filepath.Join(commonDir, "wt", "claim-key"), "bound "+fileID(commonDir), newKey, func(string, string) {})
}

// newKey is a new secret key: 32 random bytes, in hex.
func newKey() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// bound is the value in the file at path when the file is bound to bind,
// else a new one (fresh) bound to it; replaced is told when it replaced
// another. Processes that make or replace the value at once agree: they
// take turns on a lock file.
func bound(path, bind string, fresh func() (string, error), replaced func(old, now string)) (string, error) {
	id, was, err := readID(path)
	if err == nil && was == bind {
		return id, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	l, err := lock.Acquire(context.Background(), path+".lock", 10*time.Second)
	if err != nil {
		return "", err
	}
	defer l.Release()
	old, was, err := readID(path)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	case err == nil && was == bind:
		return old, nil // another process made it meanwhile
	case err == nil && was == "":
		// Written by a git-wt that did not bind ids: bind it as it is.
		return old, writeReplacing(path, old+"\n"+bind+"\n")
	}
	if id, err = fresh(); err != nil {
		return "", err
	}
	if err := writeReplacing(path, id+"\n"+bind+"\n"); err != nil {
		return "", err
	}
	if old != "" {
		replaced(old, id)
	}
	return id, nil
}

// newID is a new machine id: the start of the host name, a random part.
func newID() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	return hostPart(host) + "-" + hex.EncodeToString(b), nil
}

// binding is what a generated machine id is bound to: the common dir's
// device and inode (a copy has others) and the host's boot id (a booted
// copy of a VM image has another).
func binding(commonDir string) string {
	return strings.TrimSpace(fmt.Sprintf("bound %s %s", fileID(commonDir), proc.Self().Boot))
}

// readID reads the id file: the id, and the binding it was made for (""
// when made by a git-wt that did not bind ids).
func readID(path string) (id, bind string, err error) {
	data, err := fsutil.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	id, bind, _ = strings.Cut(strings.TrimSpace(string(data)), "\n")
	if id = strings.TrimSpace(id); id == "" {
		return "", "", fmt.Errorf("%s is empty: delete it and git-wt makes a new machine id", path)
	}
	return id, strings.TrimSpace(bind), nil
}

// hostPart is the start of a host name, as a readable part of an id.
func hostPart(host string) string {
	host, _, _ = strings.Cut(host, ".")
	var b strings.Builder
	for _, r := range host {
		if r < 128 && (r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 || b.Len() > 24 {
		return "machine"
	}
	return b.String()
}

// Sightings are when this clone first saw each claim commit of a remote:
// one small file per slug, "<oid> <unix nanoseconds>", replaced whole.
type Sightings struct{ Dir string }

// See records that the claim of slug is commit oid now, unless that
// commit was seen before, and returns when it was first seen.
func (s Sightings) See(slug, oid string, now time.Time) time.Time {
	path := filepath.Join(s.Dir, slug)
	if data, err := fsutil.ReadFile(path); err == nil {
		seenOID, nanos, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		if n, err := strconv.ParseInt(nanos, 10, 64); err == nil && seenOID == oid {
			return time.Unix(0, n)
		}
	}
	_ = writeReplacing(path, fmt.Sprintf("%s %d\n", oid, now.UnixNano()))
	return now
}

// writeReplacing puts content at path by a rename, so that a reader sees
// the old file or the new one, never half of one.
func writeReplacing(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := writeTemp(path, content)
	if err != nil {
		return err
	}
	if err := fsutil.Rename(tmp, path); err != nil { // a reader may hold it a moment (Windows)
		os.Remove(tmp)
		return err
	}
	return nil
}

// Beats are when this clone last started a heartbeat of each task's
// claim: the file's modification time, so that the check before a
// heartbeat is one stat.
type Beats struct{ Dir string }

// Due reports whether slug's heartbeat is due (none for every, or never
// sent), and if so marks it sent now, so that many commands in a burst
// start one heartbeat, not one each.
func (b Beats) Due(slug string, every time.Duration, now time.Time) bool {
	path := filepath.Join(b.Dir, slug)
	if fi, err := os.Stat(path); err == nil && !due(fi.ModTime(), every, now) {
		return false
	}
	if err := writeReplacing(path, ""); err != nil {
		return false
	}
	_ = os.Chtimes(path, now, now)
	return true
}

// due reports whether a heartbeat last sent at last is due again: every
// has passed since, or last is in the future (a clock set back, a stamp
// copied from elsewhere), which would otherwise hold heartbeats off until
// that time comes.
func due(last time.Time, every time.Duration, now time.Time) bool {
	return last.After(now) || now.Sub(last) >= every
}

// writeTemp writes content to a new file of a unique name beside path.
func writeTemp(path, content string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600) // SPEC §19: git-wt's files in the git dir are the user's alone
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
