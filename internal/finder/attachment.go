package finder

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// Caps of attachment_read: an image's bytes before base64 (a third more
// after) and a text file's.
const (
	maxImageBytes = 1 << 20
	maxTextFile   = 256 << 10
)

// images are the image types returned as images: those the models that
// read images take.
var images = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// attachmentRead returns an attachment's contents: an image as MCP image
// content (Memos' thumbnail of it when Memos has one), a text file as
// text. Anything else is refused, as is anything over the caps.
func (f *Finder) attachmentRead(ctx context.Context, args map[string]any, m Memos) ([]byte, error) {
	id, err := idOf(str(args, "name"), "attachments/")
	if err != nil {
		return nil, err
	}
	body, gerr := m.Get(ctx, memos.RouteAttachment, memos.Path(memos.RouteAttachment, id))
	if gerr != nil {
		return nil, gerr
	}
	a := rawjson.ParseBytes(body)
	name, filename, ctype := a.Get("name").Str, a.Get("filename").Str, a.Get("type").Str
	size, _ := strconv.ParseInt(a.Get("size").Str, 10, 64)
	kind := ""
	switch {
	case a.Get("externalLink").Str != "":
		return nil, fail(name + " is stored outside Memos, at its externalLink: open it there")
	case isImageType(ctype):
		kind = "image"
	case isTextType(ctype):
		kind = "text"
		if size > maxTextFile {
			return nil, fail(name + " is a text file of " + strconv.FormatInt(size, 10) + " bytes; attachment_read returns text files up to " + strconv.Itoa(maxTextFile) + " bytes")
		}
	default:
		return nil, fail(name + " is " + strconv.Quote(ctype) + ": attachment_read returns images (PNG, JPEG, GIF, WebP) and text files only")
	}
	path := "/file/attachments/" + uri.PathEscape(id) + "/" + uri.PathEscape(filename)
	if kind == "image" {
		path += "?thumbnail=true"
	}
	data, got, gerr := m.File(ctx, "/file/attachments/{attachment}/{filename}", path)
	if gerr != nil {
		return nil, gerr
	}
	got, _, _ = strings.Cut(got, ";")
	got = strings.ToLower(strings.TrimSpace(got))
	o := newObject()
	o.str("name", name)
	o.str("filename", filename)
	o.str("type", ctype)
	o.num("size", size)
	if memo := a.Get("memo").Str; memo != "" {
		o.str("memo", memo)
	}
	var item []byte
	if kind == "image" {
		if !isImageType(got) {
			got = ctype // Memos sends files with their stored type; trust the record
		}
		if len(data) > maxImageBytes {
			return nil, fail(name + " is an image of " + strconv.Itoa(len(data)) + " bytes even as Memos' thumbnail; attachment_read returns images up to " + strconv.Itoa(maxImageBytes) + " bytes")
		}
		item = append(item, `,{"type":"image","mimeType":`...)
		item = rawjson.AppendString(item, got)
		item = append(item, `,"data":"`...)
		item = base64.StdEncoding.AppendEncode(item, data)
		item = append(item, `"}`...)
	} else {
		if len(data) > maxTextFile || !utf8.Valid(data) {
			return nil, fail(name + " is not UTF-8 text of at most " + strconv.Itoa(maxTextFile) + " bytes")
		}
		item = append(item, `,{"type":"text","text":`...)
		item = rawjson.AppendString(item, string(data))
		item = append(item, '}')
	}
	o.str("returned", kind)
	o.num("bytes", int64(len(data)))
	return structured(o.done(), item), nil
}

func isImageType(t string) bool {
	for _, i := range images {
		if t == i {
			return true
		}
	}
	return false
}

// isTextType reports whether a MIME type is text a model reads as such.
func isTextType(t string) bool {
	t, _, _ = strings.Cut(t, ";")
	switch t = strings.TrimSpace(strings.ToLower(t)); {
	case strings.HasPrefix(t, "text/"):
		return true
	case t == "application/json", t == "application/xml", t == "application/yaml", t == "application/x-yaml", t == "application/toml":
		return true
	}
	return strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml")
}
