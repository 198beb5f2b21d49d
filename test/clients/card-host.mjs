// The host page of the memo card test (card-browser.mjs bundles it for the
// browser): a web host of MCP Apps built on the host side of
// @modelcontextprotocol/ext-apps. It shows the card in a sandboxed iframe
// of another origin, hands it the tool call's input and result once the
// card has initialized, forwards the card's tools/call to the gateway (via
// the test server's /call, which speaks MCP to the Worker), records the
// links the card asks to open, and sizes the iframe as the card asks.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const call = JSON.parse(document.getElementById("call").textContent);
const iframe = document.getElementById("card");
window.host = { opened: [], calls: [], initialized: false };

const bridge = new AppBridge(null, { name: "card-test-host", version: "1" }, { openLinks: {}, serverTools: {} }, {
  hostContext: { theme: "light", displayMode: "inline", locale: "en-GB", timeZone: "Europe/Berlin", platform: "web" },
});
bridge.oncalltool = async (params) => {
  window.host.calls.push(params.name);
  const r = await fetch("/call", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
  const answer = await r.json();
  if (answer.error) throw new Error(answer.error.message);
  return answer.result;
};
bridge.onopenlink = async ({ url }) => {
  window.host.opened.push(url);
  return {};
};
bridge.onsizechange = ({ height }) => {
  if (height) iframe.style.height = `${Math.min(height, 2000)}px`;
};
bridge.oninitialized = async () => {
  window.host.initialized = true;
  await bridge.sendToolInput({ arguments: call.arguments });
  await bridge.sendToolResult(call.result);
};
await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
iframe.src = iframe.dataset.src;
