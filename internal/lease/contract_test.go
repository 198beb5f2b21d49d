package lease_test

import (
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease/leasetest"
)

func TestMemoryContract(t *testing.T) {
	leasetest.Check(t, &lease.Memory{}, "")
}
