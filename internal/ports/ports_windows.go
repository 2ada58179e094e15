package ports

import "golang.org/x/sys/windows"

// The errors of a bind that tell that something has the port: Winsock's,
// not the invented EADDRINUSE and EACCES of Go's syscall package.
var errAddrInUse, errAccess error = windows.WSAEADDRINUSE, windows.WSAEACCES
