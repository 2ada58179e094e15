package git

// platformConfig is given to every git git-wt runs on Windows (SPEC §21):
// core.longpaths lets Git for Windows reach a file whose path is longer
// than MAX_PATH (260), as a deep worktree in a base dir far from the root
// has; it is set per command, never written to the user's config.
var platformConfig = []ConfigPair{{Key: "core.longpaths", Value: "true"}}
