// These tests hold the operations sync uses to take back a failed move of
// a task's files to their argv and their parsing, against the fake git.
package git_test

import (
	"context"
	"io"
	"reflect"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestChangedFilesReadsTheRawDiff(t *testing.T) {
	zero := "0000000000000000000000000000000000000000"
	for _, tc := range []struct {
		name, out string
		want      []git.FileChange
	}{
		{"none", "", nil},
		{"modified, added and deleted",
			":100644 100644 aaa bbb M\x00a.txt\x00:000000 100644 " + zero + " ccc A\x00dir/new file\x00:100644 000000 ddd " + zero + " D\x00gone\x00",
			[]git.FileChange{{Path: "a.txt", Before: "aaa", After: "bbb"}, {Path: "dir/new file", After: "ccc"}, {Path: "gone", Before: "ddd"}}},
		{"a submodule is left out", ":160000 160000 aaa bbb M\x00sub\x00:120000 120000 eee fff M\x00link\x00",
			[]git.FileChange{{Path: "link", Before: "eee", After: "fff"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			f.Expect("diff-tree", "-r", "-z", "--no-renames", "A", "B", "--").Out(tc.out)
			got, err := f.Git().History().ChangedFiles(context.Background(), "/r", "A", "B")
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestDeletedAndCheckoutFilesRunInTheWorktree(t *testing.T) {
	f := gittest.New(t)
	del := f.Expect("ls-files", "--deleted", "-z").Out("a\x00b c\x00")
	co := f.Expect("checkout-index", "-f", "-q", "-z", "--stdin")
	ix := f.Git().Index()
	if got, err := ix.Deleted(context.Background(), "/w"); err != nil || !reflect.DeepEqual(got, []string{"a", "b c"}) || !del.Got.InWorktree {
		t.Errorf("Deleted: %q, %v", got, err)
	}
	if err := ix.CheckoutFiles(context.Background(), "/w", nil); err != nil {
		t.Error(err) // no paths: no git
	}
	if err := ix.CheckoutFiles(context.Background(), "/w", []string{"a", "b c"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := io.ReadAll(co.Got.Stdin); string(data) != "a\x00b c\x00" || !co.Got.InWorktree {
		t.Errorf("checkout-index ran with %+v, input %q", co.Got, data)
	}
}
