package resources

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// readAttachment answers resources/read of memo://attachments/{id}: the
// attachment's metadata, then, when its size is within the cap, its bytes
// from Memos' file route; two requests. A text file is served as text, any
// other as a base64 blob; an external link as a text/uri-list.
func (s *Server) readAttachment(ctx context.Context, u, id, authorization string) ([]byte, error) {
	meta, err := s.memos.As(authorization).GetJSON(ctx, memos.RouteAttachment, memos.Path(memos.RouteAttachment, id))
	if status(err) == 404 {
		return nil, NotFound(u)
	}
	if err != nil {
		return nil, err
	}
	mimeType := meta.Get("type").Str
	if link := meta.Get("externalLink").Str; link != "" {
		return contents(u, "text/uri-list", link+"\r\n", false), nil
	}
	size, _ := strconv.ParseInt(meta.Get("size").String(), 10, 64)
	if size > int64(s.maxBytes) {
		return nil, tooLarge(size, s.maxBytes)
	}
	// Memos finds the file by its id; the name only completes the route, so
	// one that is no path segment is replaced.
	name := meta.Get("filename").Str
	if name == "" || name == "." || name == ".." {
		name = "file"
	}
	body, _, err := s.memos.As(authorization).File(ctx, "/file/attachments/{attachment}/{filename}",
		"/file/attachments/"+uri.PathEscape(id)+"/"+uri.PathEscape(name))
	if status(err) == 404 {
		return nil, NotFound(u)
	}
	if err != nil {
		return nil, err
	}
	if len(body) > s.maxBytes {
		return nil, tooLarge(int64(len(body)), s.maxBytes)
	}
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	if textual(mimeType) && utf8.Valid(body) {
		return contents(u, mimeType, string(body), false), nil
	}
	return contents(u, mimeType, base64.StdEncoding.EncodeToString(body), true), nil
}

// contents is a resources/read result of one text or blob.
func contents(u, mimeType, data string, blob bool) []byte {
	b := []byte(`{"contents":[{"uri":`)
	b = rawjson.AppendString(b, u)
	b = append(b, `,"mimeType":`...)
	b = rawjson.AppendString(b, mimeType)
	if blob {
		b = append(b, `,"blob":"`...)
		b = append(b, data...) // base64 needs no escaping
		b = append(b, '"')
	} else {
		b = append(b, `,"text":`...)
		b = rawjson.AppendString(b, data)
	}
	return append(b, "}]}"...)
}

// textual reports whether a media type is text a model reads as such.
func textual(mimeType string) bool {
	t, _, _ := strings.Cut(strings.ToLower(mimeType), ";")
	t = strings.TrimSpace(t)
	switch {
	case strings.HasPrefix(t, "text/"), strings.HasSuffix(t, "+json"), strings.HasSuffix(t, "+xml"):
		return true
	}
	switch t {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml",
		"application/toml", "application/javascript", "application/x-sh":
		return true
	}
	return false
}

// tooLarge explains an attachment over the cap.
func tooLarge(size int64, limit int) error {
	return errors.New("the attachment is " + strconv.FormatInt(size, 10) + " bytes; resources are read up to " +
		strconv.Itoa(limit) + " bytes (three quarters of MAX_RESPONSE_BYTES, for its base64 form): open it in Memos instead")
}
