package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// curation is spec/curation.json: which operations become tools and how each
// differs from a mechanical translation.
type curation struct {
	// Params gives better descriptions for parameters, by name.
	Params     map[string]string `json:"params"`
	Operations []override        `json:"operations"`
}

// override is one curated operation.
type override struct {
	OperationID string `json:"operationId"`
	// BodyRequired replaces the body's required list when set; [] clears it.
	BodyRequired *[]string `json:"bodyRequired"`
	// BodyOmit names body properties bound from the path instead.
	BodyOmit          []string `json:"bodyOmit"`
	BodyMinProperties int      `json:"bodyMinProperties"`
	Destructive       *bool    `json:"destructive"`
	Idempotent        *bool    `json:"idempotent"`
	// Notes are appended to the operation's description.
	Notes string `json:"notes"`
}

func loadCuration(path string) (*curation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c curation
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(c.Operations) == 0 {
		return nil, fmt.Errorf("%s: no operations", path)
	}
	return &c, nil
}

// overrides reports whether o tailors its operation beyond selecting it.
func (o override) overrides() bool {
	return o.BodyRequired != nil || o.BodyOmit != nil || o.BodyMinProperties > 0 || o.Destructive != nil || o.Idempotent != nil || o.Notes != ""
}
