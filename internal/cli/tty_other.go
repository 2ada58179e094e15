//go:build !linux && !darwin && !freebsd

package cli

import (
	"errors"
	"os"
)

// openTTY: watch has no terminal mode here; it prints plain lines.
func openTTY(any) (*os.File, bool) { return nil, false }

func rawMode(*os.File) (func(), error) { return nil, errors.New("no terminal mode here") }

func ttySize(*os.File) (int, int) { return 80, 24 }

// ttyColumns is 0: the terminal's width is not asked here (COLUMNS, else
// 80, answers).
func ttyColumns(*os.File) int { return 0 }

// notifyResize does nothing: watch has no terminal mode here.
func notifyResize(chan<- os.Signal) {}

func isResize(os.Signal) bool { return false }
