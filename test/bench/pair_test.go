package main

import (
	"os"
	"testing"
)

func TestStatMinorFaults(t *testing.T) {
	line := "4242 (work (er) d) S 1 4242 4242 0 -1 4194560 9137 0 12 0 25 4 0 0 20 0 9 0 1000 1 1\n"
	if n, err := statMinorFaults([]byte(line)); err != nil || n != 9137 {
		t.Fatalf("statMinorFaults = %d, %v; want 9137", n, err)
	}
	if _, err := statMinorFaults([]byte("4242 (workerd) S 1 2")); err == nil {
		t.Fatal("a short line was read")
	}
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		if n, err := statMinorFaults(b); err != nil || n <= 0 {
			t.Fatalf("this process's own stat line: %d, %v", n, err)
		}
	}
}
