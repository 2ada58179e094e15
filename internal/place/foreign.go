package place

import (
	"os"
	"path/filepath"
	"strings"
)

// tellForeignOnce warns, once in each repository, of each key of k1LoW's
// git-wt that is set and that git-wt does not read, with git-wt's
// equivalent (SPEC §19). The keys told are kept, a line each, in
// <common dir>/wt/foreign-keys: a warning on every new would be noise,
// and a key set later is still told.
func (r *Rules) tellForeignOnce() {
	keys := r.Settings.Foreign()
	if len(keys) == 0 {
		return
	}
	path := filepath.Join(r.Repo.CommonDir, "wt", "foreign-keys")
	told, _ := os.ReadFile(path)
	known := map[string]bool{}
	for _, line := range strings.Split(string(told), "\n") {
		known[line] = true
	}
	var tell strings.Builder
	for _, k := range keys {
		if !known[k.Key] {
			r.Warn("%s is a setting of k1LoW's git-wt, which this git-wt does not read: %s", k.Key, k.Instead)
			tell.WriteString(k.Key + "\n")
		}
	}
	if tell.Len() == 0 || os.MkdirAll(filepath.Dir(path), 0o777) != nil {
		return
	}
	if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		f.WriteString(tell.String())
		f.Close()
	}
}
