// Command generate compiles the tool registry from Memos' OpenAPI document
// and the project's curation (spec/curation.json) into tools_gen.go, with the
// definitions of package finder's hand-written tools compacted beside them.
// It is the only importer of kin-openapi, and it runs at build time only.
//
// By default the document comes from the pinned Memos module
// (github.com/usememos/memos/proto.OpenAPIYAML); -spec FILE with
// -memos-version VERSION builds for another Memos release.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/getkin/kin-openapi/openapi3"
	memosproto "github.com/usememos/memos/proto"
)

const memosModule = "github.com/usememos/memos"

func main() {
	var (
		specPath     = flag.String("spec", "", "Memos OpenAPI document `file` (default: the pinned module's embedded document)")
		memosVersion = flag.String("memos-version", "", "Memos `version` the -spec file belongs to (default: the pinned module's version)")
		curationPath = flag.String("curation", "../../spec/curation.json", "curation `file`")
		outPath      = flag.String("o", "tools_gen.go", "output `file`")
		check        = flag.Bool("check", false, "only check that the output file is up to date")
	)
	flag.Parse()
	if err := run(*specPath, *memosVersion, *curationPath, *outPath, *check); err != nil {
		fmt.Fprintf(os.Stderr, "generate: %v\n", err)
		os.Exit(1)
	}
}

func run(specPath, memosVersion, curationPath, outPath string, check bool) error {
	spec, version, err := loadSpec(specPath, memosVersion)
	if err != nil {
		return err
	}
	cur, err := loadCuration(curationPath)
	if err != nil {
		return err
	}
	src, err := generate(spec, version, cur)
	if err != nil {
		return err
	}
	if check {
		old, err := os.ReadFile(outPath)
		if err != nil || !bytes.Equal(old, src) {
			return fmt.Errorf("%s is out of date: run make generate", outPath)
		}
		return nil
	}
	return os.WriteFile(outPath, src, 0o644)
}

// generate builds the registry source for one document.
func generate(spec []byte, version string, cur *curation) ([]byte, error) {
	doc, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	tools, err := buildTools(doc, cur)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(spec)
	return emit(tools, version, hex.EncodeToString(sum[:]))
}

// loadSpec returns the OpenAPI document and the Memos version it belongs to.
func loadSpec(path, version string) ([]byte, string, error) {
	if path == "" {
		if version == "" {
			version = pinnedVersion()
		}
		return memosproto.OpenAPIYAML(), version, nil
	}
	if version == "" {
		return nil, "", errors.New("-spec needs -memos-version, the Memos release the document belongs to")
	}
	b, err := os.ReadFile(path)
	return b, version, err
}

// pinnedVersion is the version of the Memos module this generator was built
// with, as go.mod pins it.
func pinnedVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == memosModule {
				return dep.Version
			}
		}
	}
	return "unknown"
}

// parseSpec loads and validates the document.
func parseSpec(spec []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("load OpenAPI document: %w", err)
	}
	// Memos' generator leaves info.title empty, which OpenAPI forbids; it
	// names nothing a tool needs, so fill it rather than reject the document.
	if doc.Info != nil && doc.Info.Title == "" {
		doc.Info.Title = "Memos"
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("invalid OpenAPI document: %w", err)
	}
	return doc, nil
}
