package grants_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants/grantstest"
)

func TestMemory(t *testing.T) {
	grantstest.Check(t, grants.NewMemory(nil), "")
	offset := time.Duration(0)
	m := grants.NewMemory(func() time.Time { return time.Now().Add(offset) })
	grantstest.CheckForgetting(t, m, "", func(d time.Duration) { offset += d })
}

// Keys are forgotten once their time is over, and attempts leave the
// window as it moves.
func TestMemoryExpiry(t *testing.T) {
	now := time.Unix(1_900_000_000, 0)
	m := grants.NewMemory(func() time.Time { return now })
	ctx := context.Background()
	m.Advance(ctx, "g", 0, now.Add(time.Hour))
	now = now.Add(30 * time.Second)
	if step, _ := m.Advance(ctx, "g", 0, now.Add(time.Hour)); step.Moved || step.Age != 30*time.Second {
		t.Errorf("the step repeated after 30s: %+v", step)
	}
	now = now.Add(time.Hour - 30*time.Second - time.Second)
	if v, _ := m.Get(ctx, "g"); v != 1 {
		t.Errorf("before its time: %d", v)
	}
	now = now.Add(time.Second)
	if v, _ := m.Get(ctx, "g"); v != 0 {
		t.Errorf("after its time: %d", v)
	}
	for range 2 {
		m.Hit(ctx, "h", 2, time.Minute)
		now = now.Add(20 * time.Second)
	}
	if wait, _ := m.Hit(ctx, "h", 2, time.Minute); wait != 20*time.Second {
		t.Errorf("wait %v, want 20s (until the first attempt leaves the window)", wait)
	}
	now = now.Add(20 * time.Second)
	if wait, _ := m.Hit(ctx, "h", 2, time.Minute); wait != 0 {
		t.Errorf("after the first attempt left the window: wait %v", wait)
	}
}

// A flood of keys cannot grow the store past its bound; grant generations
// survive the eviction of attempt counters.
func TestMemoryBounded(t *testing.T) {
	m := grants.NewMemory(nil)
	ctx := context.Background()
	far := time.Now().Add(time.Hour)
	m.Advance(ctx, "grant", 0, far)
	for i := range grants.MaxMemoryKeys + 10 {
		if _, err := m.Hit(ctx, "attempt/"+strconv.Itoa(i), 5, time.Hour); err != nil {
			t.Fatalf("hit %d: %v", i, err)
		}
	}
	if n := m.Len(); n > grants.MaxMemoryKeys {
		t.Errorf("%d keys, want at most %d", n, grants.MaxMemoryKeys)
	}
	if v, _ := m.Get(ctx, "grant"); v != 1 {
		t.Errorf("the grant was forgotten: %d", v)
	}
}
