//go:build windows && (amd64 || arm64) && !gitwt_noprocfs

package proc

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The Restart Manager (rstrtmgr.dll, Windows Vista and later) knows which
// processes have a file open: what Linux reads in /proc/<pid>/fd. Its
// calls answer a Win32 error code.
var (
	rstrtmgr            = windows.NewLazySystemDLL("rstrtmgr.dll")
	rmStartSession      = rstrtmgr.NewProc("RmStartSession")
	rmRegisterResources = rstrtmgr.NewProc("RmRegisterResources")
	rmGetList           = rstrtmgr.NewProc("RmGetList")
	rmEndSession        = rstrtmgr.NewProc("RmEndSession")
)

// rmLoad loads the Restart Manager once; an error where it is missing.
var rmLoad = sync.OnceValue(func() error {
	for _, p := range []*windows.LazyProc{rmStartSession, rmRegisterResources, rmGetList, rmEndSession} {
		if err := p.Find(); err != nil {
			return fmt.Errorf("the Restart Manager cannot be loaded: %w", err)
		}
	}
	return nil
})

// rmError is a Restart Manager call's answer, an error code. (The
// calls convert their pointers in LazyProc.Call's own arguments, which
// keeps what they point at in place while the call runs.)
func rmError(r uintptr, _ uintptr, _ error) error {
	if r != 0 {
		return syscall.Errno(r)
	}
	return nil
}

// restartManagerHolders asks the Restart Manager which processes have any
// of the files at paths open, in one session of its own (the system
// allows a few dozen at once: one that cannot be had is an error, and the
// holders are unknown) with every file registered by one call: no limit
// on their count is documented, and HoldersIn bounds it.
func restartManagerHolders(paths []string) ([]rmHolder, error) {
	if err := rmLoad(); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, nil
	}
	names := make([]*uint16, len(paths))
	for i, path := range paths {
		name, err := windows.UTF16PtrFromString(path)
		if err != nil {
			return nil, err
		}
		names[i] = name
	}
	var session uint32
	var key [33]uint16 // CCH_RM_SESSION_KEY+1
	if err := rmError(rmStartSession.Call(uintptr(unsafe.Pointer(&session)), 0, uintptr(unsafe.Pointer(&key[0])))); err != nil {
		return nil, fmt.Errorf("RmStartSession: %w", err)
	}
	defer rmEndSession.Call(uintptr(session))
	err := rmError(rmRegisterResources.Call(uintptr(session), uintptr(len(names)), uintptr(unsafe.Pointer(&names[0])), 0, 0, 0, 0))
	// The array is kept by the call's argument; the names it points at,
	// which the system reads too, are kept by it.
	runtime.KeepAlive(names)
	if err != nil {
		return nil, fmt.Errorf("RmRegisterResources: %w", err)
	}
	// The list may grow between the call that sizes it and the one that
	// fills it: ask again, with room for a few more.
	for n := uint32(8); ; {
		buf := make([]byte, int(n)*rmProcessInfoSize)
		var needed, got uint32 = 0, n
		var reasons uint32
		err := rmError(rmGetList.Call(uintptr(session), uintptr(unsafe.Pointer(&needed)), uintptr(unsafe.Pointer(&got)), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&reasons))))
		switch {
		case err == errorMoreData:
			n = needed + 8
			continue
		case err != nil:
			return nil, fmt.Errorf("RmGetList: %w", err)
		}
		return parseRMProcessInfo(buf, int(got))
	}
}
