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
		overlayPath  = flag.String("overlay", "../../spec/memos-v0.31.json", "`file` of the next release's differences from the pinned document")
		outPath      = flag.String("o", "tools_gen.go", "output `file`")
		routesPath   = flag.String("routes", "../memos/routes_gen.go", "`file` of the routes hand-written code calls (package memos)")
		routesJSPath = flag.String("routes-js", "../../bridge/routes_gen.mjs", "`file` of the same routes for the Worker's entry module")
		check        = flag.Bool("check", false, "only check that the output file is up to date")
	)
	flag.Parse()
	if err := run(*specPath, *memosVersion, *curationPath, *overlayPath, *outPath, *routesPath, *routesJSPath, *check); err != nil {
		fmt.Fprintf(os.Stderr, "generate: %v\n", err)
		os.Exit(1)
	}
}

// document is one release's OpenAPI document.
type document struct {
	version string
	spec    []byte
}

func run(specPath, memosVersion, curationPath, overlayPath, outPath, routesPath, routesJSPath string, check bool) error {
	cur, err := loadCuration(curationPath)
	if err != nil {
		return err
	}
	ov, err := loadOverlay(overlayPath)
	if err != nil {
		return err
	}
	docs, err := documents(specPath, memosVersion, ov, cur)
	if err != nil {
		return err
	}
	src, err := generate(docs, cur, ov)
	if err != nil {
		return err
	}
	routes, routesJS, err := routesOf(docs, cur)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		path string
		src  []byte
	}{{outPath, src}, {routesPath, routes}, {routesJSPath, routesJS}} {
		if check {
			old, err := os.ReadFile(out.path)
			if err != nil || !bytes.Equal(old, out.src) {
				return fmt.Errorf("%s is out of date: run make generate", out.path)
			}
			continue
		}
		if err := os.WriteFile(out.path, out.src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// documents are the releases a build serves: the pinned one and the
// overlay's, made from it. A -spec document of the overlay's release is
// checked against the overlay (and the build is the same); one of another
// release is built alone (make release, for a release the overlay does
// not describe).
func documents(specPath, memosVersion string, ov *overlay, cur *curation) ([]document, error) {
	pinned := document{pinnedVersion(), memosproto.OpenAPIYAML()}
	next, err := ov.apply(pinned.spec)
	if err != nil {
		return nil, err
	}
	docs := []document{pinned, {ov.Release, next}}
	if specPath == "" {
		return docs, nil
	}
	given, err := loadSpec(specPath, memosVersion)
	if err != nil {
		return nil, err
	}
	switch minor(given.version) {
	case minor(pinned.version):
		return nil, fmt.Errorf("-spec: %s is the pinned release, built in already", given.version)
	case minor(ov.Release):
		if err := checkOverlay(given, docs[1], cur); err != nil {
			return nil, err
		}
		// The routes hand-written code calls, where the release has them.
		if _, _, err := routesOf([]document{pinned, given}, cur); err != nil {
			return nil, err
		}
		return docs, nil
	}
	return []document{given}, nil
}

// generate builds the registry source for the releases' documents.
func generate(docs []document, cur *curation, ov *overlay) ([]byte, error) {
	var releases []release
	for _, d := range docs {
		tools, err := toolsOf(d, cur)
		if err != nil {
			return nil, err
		}
		if err := ov.describes(d.version, tools); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(d.spec)
		releases = append(releases, release{version: d.version, sum: hex.EncodeToString(sum[:]), tools: tools})
	}
	return emit(releases)
}

// toolsOf translates the curated operations of one release's document.
func toolsOf(d document, cur *curation) ([]tool, error) {
	doc, err := parseSpec(d.spec)
	if err != nil {
		return nil, fmt.Errorf("Memos %s: %w", d.version, err)
	}
	tools, err := buildTools(doc, cur, d.version)
	if err != nil {
		return nil, fmt.Errorf("Memos %s: %w", d.version, err)
	}
	return tools, nil
}

// loadSpec returns the OpenAPI document at path, of the Memos version given.
func loadSpec(path, version string) (document, error) {
	if minor(version) == "" {
		return document{}, errors.New("-spec needs -memos-version, the Memos release the document belongs to (v0.31.0)")
	}
	b, err := os.ReadFile(path)
	return document{version, b}, err
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
