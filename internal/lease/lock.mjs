// MemoLock is the Durable Object behind package lease's Remote: one object
// per key (a memo's name), holding that key's lock and the notes of the
// calls that held it lately. The Go program sends one operation per
// request, as JSON:
//   {"op":"acquire","hold":ms,"wait":ms[,"token":t]}
//       -> {"token":t,"waited":ms,"notes":[[digest,note,ageMs],…]} once the
//          turn comes, within wait; else {"busy":true}. t, 32 hex digits,
//          is the caller's own when it gives one, else made here.
//   {"op":"release","token":t[,"digest":d,"note":n]}
//       -> {"released":true}, or false when t no longer holds the key
//   {"op":"leave","token":t}
//       -> {"left":true} when t waited (it waits no more) or held the key
//          (it is freed), else false (an acquire of t that comes after it
//          is answered busy); a caller that gave up while waiting sends it,
//          so that a turn it would never use is not handed to it
// A waiter's request stays open until its turn comes or its wait is over:
// waiters are answered in the order they came, and nobody polls. The turn
// lapses hold ms after it was granted, released or not, so that a holder
// that died (an isolate gone, a request cut) frees the key by itself.
//
// The queue lives in memory: a waiter is an open request, which ends with
// the object anyway. The holder (its token and the end of its turn) and the
// notes are in the object's SQLite storage, so that an object started
// afresh (after an eviction or a deploy) still knows a turn that has not
// lapsed, and still hands the notes on. The notes of the last ten minutes
// are kept, at most 32, each a digest of at most 64 bytes and a note of at
// most 256: never a memo's text, never a token of a caller. An alarm
// forgets them: once nothing is left, it deletes the object's storage.
const maxHoldMs = 60_000;
const maxWaitMs = 15_000;
const maxWaiters = 64;
const windowMs = 10 * 60_000;
const maxNotes = 32;
const maxDigestBytes = 64;
const maxNoteBytes = 256;

const schema =
  "CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL, until INTEGER NOT NULL);" +
  "CREATE TABLE IF NOT EXISTS note (digest TEXT PRIMARY KEY, text TEXT NOT NULL, at INTEGER NOT NULL)";

export class MemoLock {
  constructor(ctx) {
    this.storage = ctx.storage;
    this.sql = ctx.storage.sql;
    this.ready = false; // the tables are known to exist
    this.holder = undefined; // { token, until, timer }, null when free, undefined until read from storage
    this.queue = []; // waiters: { hold, since, token, answer, timer }
    this.left = []; // tokens whose callers left before their acquire came: at most maxWaiters
    this.alarmAt = undefined; // the alarm's time, null for none, undefined until read
  }

  tables() {
    if (!this.ready) this.sql.exec(schema);
    this.ready = true;
  }

  // load reads the holder from storage once per start of the object.
  load(now) {
    if (this.holder !== undefined) return;
    this.tables();
    this.holder = null;
    const row = this.sql.exec("SELECT token, until FROM holder").toArray()[0];
    if (row && row.until > now) this.hold(row.token, row.until, now);
    else if (row) this.sql.exec("DELETE FROM holder");
  }

  async fetch(request) {
    const arrived = Date.now();
    let op;
    try {
      op = await request.json();
    } catch {
      return reply(400, { error: "the operation is not JSON" });
    }
    const now = Date.now();
    this.load(now);
    switch (op?.op) {
      case "acquire": {
        if (!within(op.hold, 1, maxHoldMs) || !within(op.wait, 0, maxWaitMs)) break;
        if (op.token !== undefined && !isToken(op.token)) break;
        if (op.token !== undefined && this.left.includes(op.token)) return reply(200, { busy: true });
        if (this.holder === null) {
          const answer = this.grant(op.hold, now, arrived, op.token);
          await this.sweepLater(now);
          return reply(200, answer);
        }
        if (op.wait === 0 || this.queue.length >= maxWaiters) return reply(200, { busy: true });
        return new Promise((answer) => {
          const w = { hold: op.hold, since: arrived, token: op.token, answer };
          const leave = () => {
            const i = this.queue.indexOf(w);
            if (i < 0) return; // granted already
            this.queue.splice(i, 1);
            clearTimeout(w.timer);
            answer(reply(200, { busy: true }));
          };
          w.timer = setTimeout(leave, op.wait);
          // A caller that went away needs no turn.
          request.signal?.addEventListener?.("abort", leave, { once: true });
          this.queue.push(w);
        });
      }
      case "release": {
        if (typeof op.token !== "string") break;
        const noted = op.digest !== undefined || op.note !== undefined;
        if (noted && !(text(op.digest, 1, maxDigestBytes) && text(op.note, 0, maxNoteBytes))) break;
        if (this.holder?.token !== op.token) return reply(200, { released: false });
        if (noted) this.keepNote(op.digest, op.note, now);
        this.free(now);
        await this.sweepLater(now);
        return reply(200, { released: true });
      }
      case "leave": {
        if (!isToken(op.token)) break;
        if (this.holder?.token === op.token) {
          this.free(now);
          return reply(200, { left: true });
        }
        const w = this.queue.find((w) => w.token === op.token);
        if (!w) {
          // Its acquire may still be on the way: it is answered busy.
          this.left.push(op.token);
          if (this.left.length > maxWaiters) this.left.shift();
          return reply(200, { left: false });
        }
        this.queue.splice(this.queue.indexOf(w), 1);
        clearTimeout(w.timer);
        w.answer(reply(200, { busy: true }));
        return reply(200, { left: true });
      }
    }
    return reply(400, { error: "unknown or malformed operation" });
  }

  // grant gives the turn to a caller that asked at since, for hold ms,
  // and returns its answer.
  grant(hold, now, since, token = randomToken()) {
    this.tables();
    this.sql.exec("INSERT OR REPLACE INTO holder (id, token, until) VALUES (1, ?, ?)", token, now + hold);
    this.hold(token, now + hold, now);
    const notes = this.sql
      .exec("SELECT digest, text, at FROM note WHERE at > ? ORDER BY at", now - windowMs)
      .toArray()
      .map((n) => [n.digest, n.text, now - n.at]);
    return { token, waited: Math.max(0, now - since), notes };
  }

  // hold makes token the holder until the time until, when it lapses.
  hold(token, until, now) {
    const timer = setTimeout(() => {
      if (this.holder?.token === token) this.free(Date.now());
    }, until - now);
    this.holder = { token, until, timer };
  }

  // free ends the turn and gives it to the first waiter.
  free(now) {
    clearTimeout(this.holder.timer);
    this.holder = null;
    this.sql.exec("DELETE FROM holder");
    const w = this.queue.shift();
    if (!w) return;
    clearTimeout(w.timer);
    w.answer(reply(200, this.grant(w.hold, now, w.since, w.token)));
  }

  keepNote(digest, note, now) {
    this.tables();
    this.sql.exec("DELETE FROM note WHERE at <= ?", now - windowMs);
    this.sql.exec("INSERT OR REPLACE INTO note (digest, text, at) VALUES (?, ?, ?)", digest, note, now);
    this.sql.exec("DELETE FROM note WHERE digest NOT IN (SELECT digest FROM note ORDER BY at DESC LIMIT ?)", maxNotes);
  }

  // sweepLater makes sure an alarm will come to forget what is stored.
  async sweepLater(now) {
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    if (this.alarmAt !== null) return;
    this.alarmAt = now + windowMs;
    await this.storage.setAlarm(this.alarmAt);
  }

  // alarm forgets the notes that have aged out and, once nothing is held
  // or noted, the whole storage; otherwise it comes again when the oldest
  // note ages out.
  async alarm() {
    const now = Date.now();
    this.alarmAt = null;
    this.load(now);
    this.tables();
    this.sql.exec("DELETE FROM note WHERE at <= ?", now - windowMs);
    const oldest = this.sql.exec("SELECT MIN(at) AS at FROM note").toArray()[0]?.at ?? null;
    if (this.holder === null && this.queue.length === 0 && oldest === null) {
      await this.storage.deleteAll();
      this.ready = false;
      return;
    }
    this.alarmAt = oldest === null ? now + windowMs : oldest + windowMs;
    await this.storage.setAlarm(this.alarmAt);
  }
}

function within(n, least, most) {
  return Number.isSafeInteger(n) && n >= least && n <= most;
}

const encoder = new TextEncoder();

// text reports whether s is a string of least to most bytes in UTF-8.
function text(s, least, most) {
  if (typeof s !== "string" || s.length > most) return false;
  const n = encoder.encode(s).length;
  return n >= least && n <= most;
}

// isToken reports whether t is a token: 32 lowercase hex digits.
function isToken(t) {
  return typeof t === "string" && /^[0-9a-f]{32}$/.test(t);
}

function randomToken() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function reply(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
