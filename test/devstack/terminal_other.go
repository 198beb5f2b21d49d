//go:build !linux && !darwin

package main

// takeTerminal does nothing where process groups are not handled here.
func takeTerminal() (handBack func()) { return func() {} }
