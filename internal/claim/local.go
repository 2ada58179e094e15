package claim

import (
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
)

// What a clone keeps of claims, in <common dir>/wt/: its machine id, when
// it first saw each other machine's claim commit (staleness is judged by
// this clock alone, never by another machine's), and when it last sent a
// heartbeat.

// MachineID is configured when set (wt.machineId), else the id generated
// once for the clone and kept in <common dir>/wt/machine-id: `new` writes
// no git config. Two processes generating it at once agree, as the file
// is put in place by a link that fails when it exists.
func MachineID(commonDir, configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	path := filepath.Join(commonDir, "wt", "machine-id")
	if id, err := readID(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	id := hostPart(host) + "-" + hex.EncodeToString(b)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	tmp, err := writeTemp(path, id+"\n")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return readID(path)
}

func readID(path string) (string, error) {
	data, err := os.ReadFile(path)
	id := strings.TrimSpace(string(data))
	if err == nil && id == "" {
		err = fmt.Errorf("%s is empty: delete it and git-wt makes a new machine id", path)
	}
	return id, err
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
	if data, err := os.ReadFile(path); err == nil {
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
	if err := os.Rename(tmp, path); err != nil {
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
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
