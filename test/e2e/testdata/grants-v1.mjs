// The tables of the first release's GrantStore (grants-v1), whose counter
// had no time of a step, with just enough of its advance to fill them:
// TestGrantStoreObject makes an object with it, then checks that the
// current store reads the object and moves it on.
export class GrantStore {
  constructor(ctx) {
    this.sql = ctx.storage.sql;
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL, until INTEGER NOT NULL);" +
        "CREATE TABLE IF NOT EXISTS attempt (at INTEGER NOT NULL)",
    );
  }

  async fetch(request) {
    const op = await request.json();
    let answer = { value: 0 }; // the readiness check's get
    if (op.op === "advance" && op.from === 0) {
      this.sql.exec("INSERT OR REPLACE INTO counter (id, value, until) VALUES (1, 1, ?)", op.until);
      answer = { value: 1, moved: true };
    }
    return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
  }
}
