package fsutil

import (
	"slices"
	"testing"
)

func TestParseMountinfoReadsEachMountPointUnescaped(t *testing.T) {
	data := "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n" +
		"35 22 8:1 /data /w/build/my\\040data rw - ext4 /dev/sda1 rw\n" +
		"36 22 0:30 / /w/odd\\134name\\011x rw - tmpfs tmpfs rw\n" +
		"short line\n"
	got := parseMountinfo([]byte(data))
	want := []string{"/", "/w/build/my data", "/w/odd\\name\tx"}
	if !slices.Equal(got, want) {
		t.Fatalf("parseMountinfo = %q, want %q", got, want)
	}
}

func TestFirstWithinFindsAMountAtOrBelowTheFolder(t *testing.T) {
	mounts := []string{"/", "/home", "/w/t/node_modules/data", "/w/t2"}
	for _, c := range []struct {
		dir  string
		self bool
		want string
	}{
		{"/w/t/node_modules", true, "/w/t/node_modules/data"},
		{"/w/t", false, "/w/t/node_modules/data"},
		{"/w/t/build", true, ""},
		{"/w/t2", true, "/w/t2"}, // the folder is a mount point itself
		{"/w/t2", false, ""},     // a worktree that is its own file system
		{"/w/t2x", true, ""},     // a name that only starts the same
		{"/w", false, "/w/t/node_modules/data"},
	} {
		if got := firstWithin(c.dir, mounts, c.self); got != c.want {
			t.Errorf("firstWithin(%q, self %v) = %q, want %q", c.dir, c.self, got, c.want)
		}
	}
}
