// foldfs is a small FUSE file system for the folding tests
// (folding_test.go): it keeps its files in a folder of an ordinary file
// system and, as macOS's APFS does by default, ignores case and Unicode
// form in names while it preserves them. Each name is stored under its
// folded key (lower case, NFC), so "Fix" and "fix" are one file, and the
// name it was made with is kept (in memory) for listings.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
	"golang.org/x/text/unicode/norm"
)

// foldKey is the name a file is stored under.
func foldKey(name string) string { return strings.ToLower(norm.NFC.String(name)) }

type foldRoot struct {
	backing string
	mu      sync.Mutex
	names   map[string]string // stored path → the name it was made with
}

type foldNode struct {
	fs.Inode
	r *foldRoot
}

// stored is the path of this node in the backing folder: its path in the
// mount, each name folded (the kernel may know it by any of its forms).
func (n *foldNode) stored() string {
	p := n.Path(nil)
	if p == "" {
		return n.r.backing
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		parts[i] = foldKey(part)
	}
	return filepath.Join(append([]string{n.r.backing}, parts...)...)
}

func (n *foldNode) child(name string) string { return filepath.Join(n.stored(), foldKey(name)) }

func (n *foldNode) remember(path, name string) {
	n.r.mu.Lock()
	n.r.names[path] = name
	n.r.mu.Unlock()
}

// newChild answers a lookup or a creation with the node of path.
func (n *foldNode) newChild(ctx context.Context, path string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return nil, fs.ToErrno(err)
	}
	out.Attr.FromStat(&st)
	return n.NewInode(ctx, &foldNode{r: n.r}, fs.StableAttr{Mode: st.Mode, Ino: st.Ino}), 0
}

func (n *foldNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return n.newChild(ctx, n.child(name), out)
}

func (n *foldNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if g, ok := f.(fs.FileGetattrer); ok {
		return g.Getattr(ctx, out)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(n.stored(), &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	return 0
}

func (n *foldNode) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if s, ok := f.(fs.FileSetattrer); ok {
		return s.Setattr(ctx, in, out)
	}
	p := n.stored()
	if m, ok := in.GetMode(); ok {
		if err := syscall.Chmod(p, m); err != nil {
			return fs.ToErrno(err)
		}
	}
	if size, ok := in.GetSize(); ok {
		if err := syscall.Truncate(p, int64(size)); err != nil {
			return fs.ToErrno(err)
		}
	}
	mtime, mok := in.GetMTime()
	atime, aok := in.GetATime()
	if mok || aok {
		ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_OMIT}}
		if aok {
			ts[0] = unix.NsecToTimespec(atime.UnixNano())
		}
		if mok {
			ts[1] = unix.NsecToTimespec(mtime.UnixNano())
		}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fs.ToErrno(err)
		}
	}
	return n.Getattr(ctx, nil, out)
}

func (n *foldNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	dir := n.stored()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	n.r.mu.Lock()
	defer n.r.mu.Unlock()
	list := make([]fuse.DirEntry, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if made, ok := n.r.names[filepath.Join(dir, name)]; ok {
			name = made
		}
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join(dir, e.Name()), &st) != nil {
			continue
		}
		list = append(list, fuse.DirEntry{Name: name, Ino: st.Ino, Mode: st.Mode})
	}
	return fs.NewListDirStream(list), 0
}

func (n *foldNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := n.child(name)
	if err := syscall.Mkdir(p, mode); err != nil {
		return nil, fs.ToErrno(err)
	}
	n.remember(p, name)
	return n.newChild(ctx, p, out)
}

func (n *foldNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	p := n.child(name)
	_, statErr := os.Lstat(p)
	fd, err := syscall.Open(p, int(flags)|syscall.O_CREAT, mode)
	if err != nil {
		return nil, nil, 0, fs.ToErrno(err)
	}
	if statErr != nil {
		n.remember(p, name) // made here: a name that folds onto it keeps this one
	}
	ch, errno := n.newChild(ctx, p, out)
	if errno != 0 {
		syscall.Close(fd)
		return nil, nil, 0, errno
	}
	return ch, fs.NewLoopbackFile(fd), 0, 0
}

func (n *foldNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fd, err := syscall.Open(n.stored(), int(flags)&^syscall.O_CREAT, 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	return fs.NewLoopbackFile(fd), 0, 0
}

func (n *foldNode) forget(path string) {
	n.r.mu.Lock()
	delete(n.r.names, path)
	n.r.mu.Unlock()
}

func (n *foldNode) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.remove(name, syscall.Unlink)
}

func (n *foldNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.remove(name, syscall.Rmdir)
}

// remove removes the child name with rm, and forgets the name it was
// made with.
func (n *foldNode) remove(name string, rm func(string) error) syscall.Errno {
	p := n.child(name)
	err := rm(p)
	if err == nil {
		n.forget(p)
	}
	return fs.ToErrno(err)
}

func (n *foldNode) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	from, to := n.child(name), newParent.(*foldNode).child(newName)
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, uint(flags)); err != nil {
		return fs.ToErrno(err)
	}
	// The names made below a renamed folder move with it.
	n.r.mu.Lock()
	defer n.r.mu.Unlock()
	for p, made := range n.r.names {
		if rest, ok := strings.CutPrefix(p, from+"/"); ok {
			delete(n.r.names, p)
			n.r.names[to+"/"+rest] = made
		}
	}
	delete(n.r.names, from)
	n.r.names[to] = newName
	return 0
}

func (n *foldNode) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := n.child(name)
	if err := syscall.Symlink(target, p); err != nil {
		return nil, fs.ToErrno(err)
	}
	n.remember(p, name)
	return n.newChild(ctx, p, out)
}

func (n *foldNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	target, err := os.Readlink(n.stored())
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return []byte(target), 0
}

func (n *foldNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	var st syscall.Statfs_t
	if err := syscall.Statfs(n.r.backing, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStatfsT(&st)
	return 0
}

// foldMount mounts a foldfs and returns its folder, or skips the test
// saying why it cannot (not root, no /dev/fuse). The file system is served
// by another process (this test binary, running TestFoldfsServer): a
// process that serves a FUSE mount and also uses it can wait on itself,
// and a server that is killed releases every process waiting on the
// mount.
func foldMount(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting the folding FUSE file system needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: cannot mount the folding FUSE file system")
	}
	tmp := t.TempDir()
	backing, mnt := filepath.Join(tmp, "backing"), filepath.Join(tmp, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	server := exec.Command(os.Args[0], "-test.run=^TestFoldfsServer$")
	server.Env = append(os.Environ(), "GITWT_FOLDFS="+backing+"\n"+mnt)
	in, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	server.Stderr = os.Stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close() // the server unmounts and exits
		done := make(chan struct{})
		go func() { server.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			server.Process.Kill()
			<-done
		}
		syscall.Unmount(mnt, syscall.MNT_DETACH) // if it could not
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "mounted" {
		t.Skipf("cannot mount the folding FUSE file system: %s", strings.TrimSpace(line))
	}
	return mnt
}

// TestFoldfsServer is the process that serves a foldfs for foldMount
// (GITWT_FOLDFS: the backing folder and the mount point, a line each):
// it says "mounted", serves until its standard input closes, and
// unmounts.
func TestFoldfsServer(t *testing.T) {
	backing, mnt, ok := strings.Cut(os.Getenv("GITWT_FOLDFS"), "\n")
	if !ok {
		t.Skip("run by foldMount")
	}
	// No caching of names: a lookup of "fix" that failed must not hide
	// the "Fix" made next, and every form of a name must reach Lookup.
	var zero time.Duration
	root := &foldNode{r: &foldRoot{backing: backing, names: map[string]string{}}}
	server, err := fs.Mount(mnt, root, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{DirectMount: true, AllowOther: true, FsName: "foldfs", Options: []string{"default_permissions"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mounted")
	io.Copy(io.Discard, os.Stdin)
	if err := server.Unmount(); err != nil {
		syscall.Unmount(mnt, syscall.MNT_DETACH)
	}
}

// On the folding FUSE file system: the same as on APFS, with git and
// git-wt unaware of the folding but for what the file system does.
func TestFoldedSlugsAreTwoTasksOnAFoldingFUSE(t *testing.T) {
	mnt := foldMount(t)
	// The file system folds as APFS does: one file for each form.
	if err := os.WriteFile(filepath.Join(mnt, "Fix"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mnt, "cafe\u0301"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fix", "FIX", "caf\u00e9", "CAF\u00c9"} {
		if _, err := os.Stat(filepath.Join(mnt, name)); err != nil {
			t.Fatalf("foldfs does not fold %q: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(mnt); len(entries) != 2 || entries[0].Name() != "Fix" {
		t.Fatalf("foldfs lists %v, want the names as made", entries)
	}
	checkFoldingIn(t, mnt)
}
