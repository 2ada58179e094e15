package git

import (
	"context"
	"strings"
)

// ConfigEntry is one value of `git config --list -z --show-scope
// --show-origin`: its scope (system, global, local, worktree, command),
// the file or source it came from ("file:<path>", "command line:"), its
// key as git prints it, and its value ("true" for a key with none).
type ConfigEntry struct {
	Scope, Origin, Key, Value string
}

// ConfigListArgs are the arguments of the config listing ParseConfigList
// reads.
var ConfigListArgs = []string{"config", "--list", "-z", "--show-scope", "--show-origin"}

// ParseConfigList reads the output of git with ConfigListArgs: records of
// "<scope>\0<origin>\0<key>\n<value>\0", or "<scope>\0<origin>\0<key>\0"
// for a key with no value.
func ParseConfigList(out string) []ConfigEntry {
	fields := strings.Split(out, "\x00")
	var entries []ConfigEntry
	for i := 0; i+2 < len(fields); i += 3 {
		key, value, hasValue := strings.Cut(fields[i+2], "\n")
		if !hasValue {
			value = "true"
		}
		entries = append(entries, ConfigEntry{Scope: fields[i], Origin: fields[i+1], Key: key, Value: value})
	}
	return entries
}

// ConfigGet is the value of key in the repository at dir, "" when unset.
func (r Config) Get(ctx context.Context, dir, key string) string {
	out, _ := r.git.Run(ctx, dir, "config", "--get", key)
	return strings.TrimSpace(out)
}

// ConfigSet sets key to value in the repository's own config.
func (r Config) Set(ctx context.Context, dir, key, value string) error {
	_, err := r.git.Run(ctx, dir, "config", key, value)
	return err
}

// ConfigReplaceLocal makes value the only value of key in the
// repository's local config.
func (r Config) ReplaceLocal(ctx context.Context, dir, key, value string) error {
	_, err := r.git.Run(ctx, dir, "config", "--local", "--replace-all", key, value)
	return err
}

// ConfigUnsetLocal removes every value of key from the repository's local
// config; unset reports whether there was any.
func (r Config) UnsetLocal(ctx context.Context, dir, key string) (unset bool, err error) {
	_, err = r.git.Run(ctx, dir, "config", "--local", "--unset-all", key)
	if ExitCode(err) == 5 { // nothing was set
		return false, nil
	}
	return err == nil, err
}

// AddLocal adds value to the values of the multi-valued key in the
// repository's local config, unless it is there already; added reports
// whether it was not.
func (r Config) AddLocal(ctx context.Context, dir, key, value string) (added bool, err error) {
	_, err = r.git.Run(ctx, dir, "config", "--local", "--fixed-value", "--get", key, value)
	if err == nil {
		return false, nil
	}
	_, err = r.git.Run(ctx, dir, "config", "--local", "--add", key, value)
	return err == nil, err
}

// UnsetLocalValue removes value from the values of key in the
// repository's local config; unset reports whether it was there.
func (r Config) UnsetLocalValue(ctx context.Context, dir, key, value string) (unset bool, err error) {
	_, err = r.git.Run(ctx, dir, "config", "--local", "--fixed-value", "--unset-all", key, value)
	if ExitCode(err) == 5 {
		return false, nil
	}
	return err == nil, err
}

// ConfigRemoveSection removes a section ("branch.wt/x") and its keys.
func (r Config) RemoveSection(ctx context.Context, dir, section string) error {
	_, err := r.git.Run(ctx, dir, "config", "--remove-section", section)
	return err
}

// Remotes lists the repository's remotes.
func (r Config) Remotes(ctx context.Context, dir string) ([]string, error) {
	return r.git.Lines(ctx, dir, "remote")
}

// ColorSettings reads color.wt and color.ui from dir, before the
// repository is located (nothing set, and no repository, read as none).
func (r Config) ColorSettings(ctx context.Context, dir string) map[string]string {
	out, _ := r.git.Exec(ctx, Cmd{Dir: dir, KeepLocation: true, Args: []string{
		"config", "--null", "--get-regexp", `^color\.(wt|ui)$`,
	}})
	values := map[string]string{}
	for _, kv := range strings.Split(string(out), "\x00") {
		if k, v, ok := strings.Cut(kv, "\n"); ok {
			values[k] = v
		}
	}
	return values
}
