// GrantStore is the Durable Object behind package grants' Remote: one
// object per key, each holding one counter in its SQLite storage. The Go
// program sends one operation per request, as JSON:
//   {"op":"advance","from":n,"until":t}  value n -> n+1 when it is n ("moved")
//   {"op":"end","until":t}               value -> -1, for good
//   {"op":"get"}
//   {"op":"hit","limit":n,"window":s}    count an attempt within s seconds
// and gets {"value":v} (and "retryAfter" in seconds for a refused hit).
// A missing or forgotten key is 0. until (Unix seconds) is when the key may
// be forgotten; an alarm then deletes the object's storage. An object runs
// one request at a time and its writes here are synchronous, so each
// operation is atomic.
const ended = -1;

export class GrantStore {
  constructor(ctx) {
    this.storage = ctx.storage;
    this.sql = ctx.storage.sql;
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL, until INTEGER NOT NULL);" +
        "CREATE TABLE IF NOT EXISTS attempt (at INTEGER NOT NULL)",
    );
  }

  async fetch(request) {
    let op;
    try {
      op = await request.json();
    } catch {
      return reply(400, { error: "the operation is not JSON" });
    }
    const now = Math.floor(Date.now() / 1000);
    const row = this.sql.exec("SELECT value, until FROM counter WHERE id = 1").toArray()[0];
    let value = row && row.until > now ? row.value : 0;
    const until = row && row.until > now ? row.until : 0;
    switch (op?.op) {
      case "get":
        return reply(200, { value });
      case "advance":
        if (!whole(op.from) || !whole(op.until)) break;
        if (value !== op.from || value === ended) return reply(200, { value, moved: false });
        value++;
        await this.keep(value, Math.max(until, op.until));
        return reply(200, { value, moved: true });
      case "end":
        if (!whole(op.until)) break;
        await this.keep(ended, Math.max(until, op.until));
        return reply(200, { value: ended });
      case "hit": {
        if (!whole(op.limit) || !whole(op.window) || op.limit < 1 || op.window < 1) break;
        this.sql.exec("DELETE FROM attempt WHERE at <= ?", now - op.window);
        const hits = this.sql.exec("SELECT at FROM attempt ORDER BY at").toArray();
        if (hits.length >= op.limit) {
          return reply(200, { value, retryAfter: Math.max(1, hits[hits.length - op.limit].at + op.window - now) });
        }
        this.sql.exec("INSERT INTO attempt (at) VALUES (?)", now);
        await this.forgetAt(now + op.window);
        return reply(200, { value });
      }
    }
    return reply(400, { error: "unknown or malformed operation" });
  }

  async keep(value, until) {
    this.sql.exec("INSERT OR REPLACE INTO counter (id, value, until) VALUES (1, ?, ?)", value, until);
    await this.forgetAt(until);
  }

  // forgetAt makes sure the alarm that deletes everything comes no earlier
  // than t (Unix seconds).
  async forgetAt(t) {
    const at = await this.storage.getAlarm();
    if (at === null || at < t * 1000) await this.storage.setAlarm(t * 1000);
  }

  async alarm() {
    await this.storage.deleteAll();
  }
}

function whole(n) {
  return Number.isSafeInteger(n);
}

function reply(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
