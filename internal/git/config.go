package git

import "strings"

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
