// GrantStore is the Durable Object behind package grants' Remote: one
// object per key, each holding one counter in its SQLite storage. The Go
// program sends one operation per request, as JSON:
//   {"op":"advance","from":n,"until":t}  value n -> n+1 when it is n ("moved");
//                                        otherwise "age": seconds it has held its value
//   {"op":"end","until":t}               value -> -1, for good
//   {"op":"get"}
//   {"op":"hit","limit":n,"window":s}    count an attempt within s seconds
// and gets {"value":v} (and "retryAfter" in seconds for a refused hit).
// A missing or forgotten key is 0. until (Unix seconds) is when the key may
// be forgotten; an alarm then deletes the object's storage, tables
// included, and the next write makes them again. Reads and refusals write
// nothing. An object runs one request at a time and its writes here are
// synchronous, so each operation is atomic.
const ended = -1;

const schema =
  "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL, until INTEGER NOT NULL, at INTEGER NOT NULL DEFAULT 0);" +
  "CREATE TABLE IF NOT EXISTS attempt (at INTEGER NOT NULL)";

export class GrantStore {
  constructor(ctx) {
    this.storage = ctx.storage;
    this.sql = ctx.storage.sql;
    this.ready = false; // the tables are known to exist
  }

  // tables reports whether the tables exist; with create, it makes them
  // first. Objects made before counter had its at column get it here.
  tables(create) {
    if (this.ready) return true;
    const have = this.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('counter', 'attempt')").toArray().length === 2;
    if (!have && !create) return false;
    this.sql.exec(schema);
    if (this.sql.exec("SELECT name FROM pragma_table_info('counter') WHERE name = 'at'").toArray().length === 0) {
      this.sql.exec("ALTER TABLE counter ADD COLUMN at INTEGER NOT NULL DEFAULT 0");
    }
    this.ready = true;
    return true;
  }

  async fetch(request) {
    let op;
    try {
      op = await request.json();
    } catch {
      return reply(400, { error: "the operation is not JSON" });
    }
    const now = Math.floor(Date.now() / 1000);
    const stored = this.tables(false);
    const row = stored ? this.sql.exec("SELECT value, until, at FROM counter WHERE id = 1").toArray()[0] : undefined;
    const live = row && row.until > now;
    let value = live ? row.value : 0;
    const until = live ? row.until : 0;
    switch (op?.op) {
      case "get":
        return reply(200, { value });
      case "advance":
        if (!whole(op.from) || !whole(op.until)) break;
        if (value !== op.from || value === ended) return reply(200, { value, moved: false, age: live ? Math.max(0, now - row.at) : 0 });
        value++;
        await this.keep(value, Math.max(until, op.until), now);
        return reply(200, { value, moved: true });
      case "end":
        if (!whole(op.until)) break;
        await this.keep(ended, Math.max(until, op.until), now);
        return reply(200, { value: ended });
      case "hit": {
        if (!whole(op.limit) || !whole(op.window) || op.limit < 1 || op.window < 1) break;
        const hits = stored ? this.sql.exec("SELECT at FROM attempt WHERE at > ? ORDER BY at", now - op.window).toArray() : [];
        if (hits.length >= op.limit) {
          return reply(200, { value, retryAfter: Math.max(1, hits[hits.length - op.limit].at + op.window - now) });
        }
        this.tables(true);
        this.sql.exec("DELETE FROM attempt WHERE at <= ?", now - op.window);
        this.sql.exec("INSERT INTO attempt (at) VALUES (?)", now);
        await this.forgetAt(now + op.window);
        return reply(200, { value });
      }
    }
    return reply(400, { error: "unknown or malformed operation" });
  }

  async keep(value, until, now) {
    this.tables(true);
    this.sql.exec("INSERT OR REPLACE INTO counter (id, value, until, at) VALUES (1, ?, ?, ?)", value, until, now);
    await this.forgetAt(until);
  }

  // forgetAt makes sure the alarm that deletes everything comes no earlier
  // than t (Unix seconds).
  async forgetAt(t) {
    const at = await this.storage.getAlarm();
    if (at === null || at < t * 1000) await this.storage.setAlarm(t * 1000);
  }

  // alarm forgets the key: deleteAll drops the tables too, so the next
  // write makes them again.
  async alarm() {
    await this.storage.deleteAll();
    this.ready = false;
  }
}

function whole(n) {
  return Number.isSafeInteger(n);
}

function reply(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
