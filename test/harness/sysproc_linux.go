package harness

import "syscall"

// sysProcAttr gives a child its own process group, and kills it if the
// process that started it dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
