//go:build !windows

package place

// pathsLimited is false: only Windows limits paths to MAX_PATH.
const pathsLimited = false
