package harness

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// MCPHeaders are what an MCP client sends with every request after
// initialize, in the 2025-06-18 era that SDK clients speak today, with the
// caller's Memos token.
func MCPHeaders(token string) http.Header {
	return http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-06-18"},
		"Authorization":        {"Bearer " + token},
	}
}

// Post sends body to url with header and reads the whole answer.
func Post(ctx context.Context, client *http.Client, url, body string, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		return 0, nil, err
	}
	req.Header = header.Clone()
	return Do(client, req)
}

// Do sends req and reads the whole answer.
func Do(client *http.Client, req *http.Request) (int, []byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
