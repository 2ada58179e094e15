//go:build unix

package ports

import "syscall"

// The errors of a bind that tell that something has the port.
var errAddrInUse, errAccess error = syscall.EADDRINUSE, syscall.EACCES
