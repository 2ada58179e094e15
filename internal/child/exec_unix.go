//go:build unix

package child

import "syscall"

// replace makes this process the program at path (execve): it returns
// only when the program could not be started.
func replace(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
