package proc

// The structures macOS answers with (table_darwin.go makes the calls),
// read from their bytes here. This file is built on every platform so
// that its tests run where CI runs: a Mac is not needed to check that a
// kinfo_proc or a libproc vnode_info_path is read right.
//
// The layouts are those of amd64 and arm64 (both little-endian, 64-bit,
// the same offsets). kinfo_proc's offsets are checked against
// golang.org/x/sys/unix's generated KinfoProc when git-wt is built for
// darwin (table_darwin.go), so the cross-compile of make test fails if
// they drift; libproc's structures are not in x/sys and come from
// <sys/proc_info.h>.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// struct kinfo_proc (<sys/sysctl.h>): struct extern_proc kp_proc, then
// struct eproc kp_eproc.
const (
	kinfoProcSize = 648
	kpStartSec    = 0   // kp_proc.p_starttime.tv_sec, int64
	kpStartUsec   = 8   // kp_proc.p_starttime.tv_usec, int32
	kpStat        = 36  // kp_proc.p_stat, int8
	kpPID         = 40  // kp_proc.p_pid, int32
	kpComm        = 243 // kp_proc.p_comm, char[MAXCOMLEN+1]
	kpCommLen     = 17
	kpPPID        = 560 // kp_eproc.e_ppid, int32
	kpPGID        = 564 // kp_eproc.e_pgid, int32

	// sZomb is p_stat of a process that has exited and waits to be reaped.
	sZomb = 5
)

var le = binary.LittleEndian

var errShort = errors.New("short structure")

// parseKinfoProc reads one kinfo_proc: its pid and what stat says of it.
// The start is the wall clock time at fork as the kernel kept it
// (seconds and microseconds): the same every time it is read.
func parseKinfoProc(b []byte) (int, stat, error) {
	if len(b) < kinfoProcSize {
		return 0, stat{}, fmt.Errorf("kinfo_proc: %w (%d bytes)", errShort, len(b))
	}
	sec := int64(le.Uint64(b[kpStartSec:]))
	usec := int32(le.Uint32(b[kpStartUsec:]))
	st := stat{
		ppid:      int(int32(le.Uint32(b[kpPPID:]))),
		pgid:      int(int32(le.Uint32(b[kpPGID:]))),
		name:      cString(b[kpComm : kpComm+kpCommLen]),
		exited:    b[kpStat] == sZomb,
		start:     strconv.FormatInt(sec, 10) + "." + fmt.Sprintf("%06d", usec),
		startUnix: float64(sec) + float64(usec)/1e6,
	}
	return int(int32(le.Uint32(b[kpPID:]))), st, nil
}

// parseKinfoProcs reads the pids of the array of kinfo_proc that
// kern.proc.all answers.
func parseKinfoProcs(b []byte) ([]int, error) {
	if len(b)%kinfoProcSize != 0 {
		return nil, fmt.Errorf("kern.proc.all: %d bytes are no whole kinfo_proc", len(b))
	}
	pids := make([]int, 0, len(b)/kinfoProcSize)
	for off := 0; off < len(b); off += kinfoProcSize {
		pid, _, err := parseKinfoProc(b[off : off+kinfoProcSize])
		if err != nil {
			return nil, err
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// libproc (<sys/proc_info.h>).
const (
	// proc_pidinfo flavors and proc_pidfdinfo's.
	procPIDListFDs         = 1 // PROC_PIDLISTFDS: struct proc_fdinfo[]
	procPIDVnodePathInfo   = 9 // PROC_PIDVNODEPATHINFO: struct proc_vnodepathinfo
	procPIDFDVnodePathInfo = 2 // PROC_PIDFDVNODEPATHINFO: struct vnode_fdinfowithpath

	// struct vinfo_stat (136 bytes) opens struct vnode_info (152), which
	// opens struct vnode_info_path (1176), whose path follows it.
	vstDev            = 0 // vinfo_stat.vst_dev, uint32 (dev_t: int32)
	vstIno            = 8 // vinfo_stat.vst_ino, uint64
	vipPath           = 152
	vnodeInfoPathSize = 1176
	// struct proc_vnodepathinfo: pvi_cdir, pvi_rdir (vnode_info_path each).
	vnodePathInfoSize = 2 * vnodeInfoPathSize
	// struct proc_fdinfo: int32 proc_fd, uint32 proc_fdtype.
	fdInfoSize  = 8
	fdTypeVnode = 1 // PROX_FDTYPE_VNODE
	// struct vnode_fdinfowithpath: struct proc_fileinfo (24 bytes), then
	// a vnode_info_path.
	fdPathInfo          = 24
	fdVnodePathInfoSize = fdPathInfo + vnodeInfoPathSize
)

// parseVnodeInfoPath reads a vnode_info_path: the path, and the file by
// device and inode.
func parseVnodeInfoPath(b []byte) (string, fileID, error) {
	if len(b) < vnodeInfoPathSize {
		return "", fileID{}, fmt.Errorf("vnode_info_path: %w (%d bytes)", errShort, len(b))
	}
	id := fileID{dev: uint64(int32(le.Uint32(b[vstDev:]))), ino: le.Uint64(b[vstIno:])}
	return cString(b[vipPath:vnodeInfoPathSize]), id, nil
}

// parseCwd reads the working directory (pvi_cdir) of a
// proc_vnodepathinfo.
func parseCwd(b []byte) (string, fileID, error) {
	if len(b) < vnodePathInfoSize {
		return "", fileID{}, fmt.Errorf("proc_vnodepathinfo: %w (%d bytes)", errShort, len(b))
	}
	path, id, err := parseVnodeInfoPath(b)
	if err == nil && path == "" {
		err = errors.New("proc_vnodepathinfo: no working directory")
	}
	return path, id, err
}

// parseVnodeFDs reads the descriptors of files (vnodes, not sockets or
// pipes) in a proc_fdinfo array.
func parseVnodeFDs(b []byte) []int {
	var fds []int
	for off := 0; off+fdInfoSize <= len(b); off += fdInfoSize {
		if le.Uint32(b[off+4:]) == fdTypeVnode {
			fds = append(fds, int(int32(le.Uint32(b[off:]))))
		}
	}
	return fds
}

// parseFDPath reads the path of an open file's vnode_fdinfowithpath.
func parseFDPath(b []byte) (string, error) {
	if len(b) < fdVnodePathInfoSize {
		return "", fmt.Errorf("vnode_fdinfowithpath: %w (%d bytes)", errShort, len(b))
	}
	path, _, err := parseVnodeInfoPath(b[fdPathInfo:])
	return path, err
}

// cString is the NUL-terminated string at the start of b.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// parseProcArgs2 reads the arguments and the environment of a process
// from sysctl kern.procargs2's answer: argc (int32), the executable's
// path, NUL padding, then argc NUL-terminated arguments, then the
// environment's NUL-terminated strings up to an empty one.
func parseProcArgs2(b []byte) (args, env []string, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("procargs2: %w (%d bytes)", errShort, len(b))
	}
	argc := int(int32(le.Uint32(b)))
	rest := b[4:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return nil, nil, fmt.Errorf("procargs2: %w: no end to the executable's path", errShort)
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	args = make([]string, 0, max(argc, 0))
	for len(args) < argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, nil, fmt.Errorf("procargs2: %w: %d of %d arguments", errShort, len(args), argc)
		}
		args = append(args, string(rest[:i]))
		rest = rest[i+1:]
	}
	for {
		i := bytes.IndexByte(rest, 0)
		if i <= 0 {
			return args, env, nil
		}
		env = append(env, string(rest[:i]))
		rest = rest[i+1:]
	}
}
