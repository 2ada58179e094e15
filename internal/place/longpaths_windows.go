package place

// pathsLimited: Windows limits a path to MAX_PATH (260) for programs
// without long-path support.
const pathsLimited = true
