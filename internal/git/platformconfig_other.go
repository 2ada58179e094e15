//go:build !windows

package git

// platformConfig is the config every git git-wt runs gets on this system:
// none (Windows has core.longpaths, platformconfig_windows.go).
var platformConfig []ConfigPair
