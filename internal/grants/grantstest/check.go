// Package grantstest checks that a grants.Store keeps the package's
// contract: the in-memory store in unit tests, and the Durable Object under
// wrangler in the end-to-end tests, with the same cases.
package grantstest

import (
	"context"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
)

// Check runs the contract's cases on s, under keys that start with prefix
// (so that runs on one persistent store do not meet).
func Check(t *testing.T, s grants.Store, prefix string) {
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	advance := func(key string, from int64, wantMoved bool, want int64) {
		t.Helper()
		step, err := s.Advance(ctx, prefix+key, from, until)
		if err != nil || step.Moved != wantMoved || step.Value != want {
			t.Errorf("Advance(%s, %d) = %+v, %v; want moved %v, value %d", key, from, step, err, wantMoved, want)
		}
	}
	get := func(key string, want int64) {
		t.Helper()
		if got, err := s.Get(ctx, prefix+key); err != nil || got != want {
			t.Errorf("Get(%s) = %d, %v; want %d", key, got, err, want)
		}
	}
	t.Run("a key starts at 0", func(t *testing.T) { get("fresh", 0) })
	t.Run("advance moves from the current value only", func(t *testing.T) {
		advance("g", 1, false, 0)
		advance("g", 0, true, 1)
		advance("g", 0, false, 1) // a replay of the step just taken
		advance("g", 1, true, 2)
		advance("g", 3, false, 2)
		get("g", 2)
	})
	t.Run("a step that did not move tells how long the value has held", func(t *testing.T) {
		advance("a", 0, true, 1)
		step, err := s.Advance(ctx, prefix+"a", 0, until)
		if err != nil || step.Moved || step.Value != 1 || step.Age < 0 || step.Age >= time.Minute {
			t.Errorf("the step repeated at once: %+v, %v; want value 1 held for less than a minute", step, err)
		}
		if step, err := s.Advance(ctx, prefix+"never-moved", 5, until); err != nil || step.Moved || step.Value != 0 || step.Age != 0 {
			t.Errorf("a key that never moved: %+v, %v", step, err)
		}
	})
	t.Run("an ended key never moves again", func(t *testing.T) {
		advance("e", 0, true, 1)
		if err := s.End(ctx, prefix+"e", until); err != nil {
			t.Fatal(err)
		}
		get("e", grants.Ended)
		advance("e", 1, false, grants.Ended)
		advance("e", grants.Ended, false, grants.Ended)
		if err := s.End(ctx, prefix+"never-advanced", until); err != nil {
			t.Fatal(err)
		}
		advance("never-advanced", 0, false, grants.Ended)
	})
	t.Run("hits are counted up to the limit", func(t *testing.T) {
		for i := range 3 {
			if wait, err := s.Hit(ctx, prefix+"h", 3, time.Hour); err != nil || wait != 0 {
				t.Fatalf("hit %d: %v, %v", i+1, wait, err)
			}
		}
		wait, err := s.Hit(ctx, prefix+"h", 3, time.Hour)
		if err != nil || wait <= 0 || wait > time.Hour {
			t.Errorf("hit past the limit: %v, %v; want a wait within the hour", wait, err)
		}
		if wait, err := s.Hit(ctx, prefix+"other", 3, time.Hour); err != nil || wait != 0 {
			t.Errorf("another key's hit: %v, %v", wait, err)
		}
	})
}

// CheckForgetting checks that s forgets a key once its time is over and
// keeps answering for it afterwards, as a fresh key: pass lets time go by
// (a fake clock, or waiting for the Durable Object's alarm).
func CheckForgetting(t *testing.T, s grants.Store, prefix string, pass func(time.Duration)) {
	ctx := context.Background()
	const short = 2 * time.Second
	if step, err := s.Advance(ctx, prefix+"g", 0, time.Now().Add(short)); err != nil || !step.Moved {
		t.Fatalf("advance: %+v, %v", step, err)
	}
	if wait, err := s.Hit(ctx, prefix+"h", 1, short); err != nil || wait != 0 {
		t.Fatalf("hit: %v, %v", wait, err)
	}
	pass(2 * short)
	if v, err := s.Get(ctx, prefix+"g"); err != nil || v != 0 {
		t.Errorf("a forgotten key: %d, %v; want 0", v, err)
	}
	if step, err := s.Advance(ctx, prefix+"g", 0, time.Now().Add(time.Hour)); err != nil || !step.Moved || step.Value != 1 {
		t.Errorf("advancing a forgotten key: %+v, %v; want it moved to 1", step, err)
	}
	if wait, err := s.Hit(ctx, prefix+"h", 1, time.Hour); err != nil || wait != 0 {
		t.Errorf("a hit on a forgotten budget: %v, %v; want it counted", wait, err)
	}
	if wait, err := s.Hit(ctx, prefix+"h", 1, time.Hour); err != nil || wait <= 0 {
		t.Errorf("the next hit past the limit: %v, %v; want a wait", wait, err)
	}
}
