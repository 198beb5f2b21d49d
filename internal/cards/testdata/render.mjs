// Runs the card's renderer (card.html, between "render: begin" and
// "render: end") on each Markdown text of the JSON array on stdin, and
// writes the array of the HTML it renders. render_test.go drives it.
import { readFileSync } from "node:fs";
import { text } from "node:stream/consumers";

const page = readFileSync(process.argv[2], "utf8");
const source = page.slice(page.indexOf("// render: begin"), page.indexOf("// render: end"));
const { render } = await import(`data:text/javascript,${encodeURIComponent(source)}`);
process.stdout.write(JSON.stringify(JSON.parse(await text(process.stdin)).map(render)));
