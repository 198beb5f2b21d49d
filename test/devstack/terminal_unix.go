//go:build linux || darwin

package main

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// takeTerminal makes this program the terminal's foreground process group,
// so that Ctrl-C reaches it alone. Otherwise make, which runs it, gets the
// signal too and dies of it once the program has stopped, and `make dev`
// ends in failure although stopping was the user's wish. It returns the
// function that hands the terminal back; without a terminal, or when not
// in the foreground, it does nothing.
func takeTerminal() (handBack func()) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return func() {}
	}
	fd := tty.Fd()
	owner, err := foreground(fd)
	if err != nil || owner != syscall.Getpgrp() {
		tty.Close()
		return func() {}
	}
	// A background group may set the foreground only while it ignores
	// SIGTTOU.
	signal.Ignore(syscall.SIGTTOU)
	if syscall.Setpgid(0, 0) != nil || setForeground(fd, syscall.Getpgrp()) != nil {
		tty.Close()
		return func() {}
	}
	return func() {
		setForeground(fd, owner)
		tty.Close()
	}
}

func foreground(fd uintptr) (int, error) {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return 0, errno
	}
	return int(pgrp), nil
}

func setForeground(fd uintptr, pgrp int) error {
	p := int32(pgrp)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&p))); errno != 0 {
		return errno
	}
	return nil
}
