//go:build unix && !linux

package harness

import "syscall"

// sysProcAttr gives a child its own process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
