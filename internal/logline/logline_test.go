package logline

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// lines records each Write as one line.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, string(p))
	return len(p), nil
}

func TestPrint(t *testing.T) {
	var l lines
	SetOutput(&l)
	defer SetOutput(nil)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { Print("tool ", "memo_get_memo", ": HTTP ", "502", ": ", "bad gateway") })
	}
	wg.Wait()
	Print()
	if len(l.got) != 51 {
		t.Fatalf("%d writes, want 51", len(l.got))
	}
	for _, line := range l.got[:50] {
		if line != "tool memo_get_memo: HTTP 502: bad gateway\n" {
			t.Fatalf("line %q", line)
		}
	}
	if l.got[50] != "\n" {
		t.Errorf("empty line %q", l.got[50])
	}
}

// After SetOutput(nil), lines go nowhere: not to the writer set before.
func TestDroppedAfterNil(t *testing.T) {
	var before bytes.Buffer
	SetOutput(&before)
	Print("kept")
	SetOutput(nil)
	Print("dropped")
	if got := before.String(); got != "kept\n" {
		t.Errorf("the earlier writer got %q", got)
	}
}

// Value spells what fmt's %v spells, for the types it knows.
func TestValue(t *testing.T) {
	var nilErr error
	for _, v := range []any{nil, nilErr, errors.New("boom"), fmt.Errorf("wrapped: %w", errors.New("x")), "text", 42, int64(-7), uint64(1 << 63), true} {
		if got, want := Value(v), fmt.Sprintf("%v", v); got != want {
			t.Errorf("Value(%#v) = %q, fmt %q", v, got, want)
		}
	}
	for _, v := range []any{struct{}{}, time.Second} {
		if got := Value(v); got != "(a value of a type logline does not spell)" {
			t.Errorf("Value(%#v) = %q", v, got)
		}
	}
}
