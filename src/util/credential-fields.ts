/**
 * Credentials written as named fields inside a text: a connection string's password
 * (`Server=db;User Id=sa;Password=…;`, `host=db password=… port=5432`, ODBC's `PWD={…}`), a URL's query
 * (`?user=u&password=…`, `?token=…`, and with scrubUrlQueryFields names that are a credential there only:
 * `?key=…`), an option (`--db-password=…`, `-Dssl.trustStorePassword=…`).
 *
 * A field is `name=value`, its name starting the text or following a space, `;`, `&`, `?`, `,`, `:`, a
 * quote, or a written-out `\n`, `\r` or `\t` (a backslash and a letter, which `printf` and `echo -e` turn
 * into the real one: a credential helper's `printf 'username=x\npassword=…'`). Its value is `"…"` (`""`
 * inside), `'…'` (`''` or `\'` inside), `{…}` (`}}` inside), or bare: up to `;` or `&`, and past spaces and
 * written-out separators unless another `name=` follows them (`Password=my pass;` and `Password=a\nb;` are
 * one value each, `password=x port=5432` and `user=x\npassword=y` two fields). A value that cannot be told
 * apart is hidden to its end; a Windows path reads as a field only where a folder's name holds `=` right
 * after such an escape (`C:\runs\npassword=draft\x` becomes `C:\runs\npassword=***`).
 *
 * An option (`-Dx.password=…`, `--db-password=…`: a name after a dash) ends at a space, as a shell's word
 * does, so the options after it are kept (`-Xmx2g`); its value a switch's (`1`, `on`, `true`…: build flags'
 * `-DENABLE_AUTH=1`) is no credential, nor is GNU make's `--jobserver-auth=3,4` (PLAIN_OPTIONS).
 *
 * Security: the patterns are linear: a field's name is scanned from the one separator before it, and each
 * bare word of a value once (plus a look at the name after each space or written-out separator); where
 * braced values close is found in one scan of the text for all of them (bracedEnds).
 */
// A field's name and `=`, looked for after a space or a written-out separator: there a bare value ends.
const NEXT_FIELD = String.raw`[\w.-]+\s*=`;
// A bare value's word: up to `;`, `&`, a space, or a written-out separator before NEXT_FIELD (unrolled:
// JavaScriptCore runs a repeated group of alternatives far slower).
const BARE_WORD = String.raw`[^;&\s\\]*(?:\\(?![nrt]${NEXT_FIELD})[^;&\s\\]*)*`;
// A `{…}` value reads as a bare one here; bracedEnds finds where it closes.
const FIELD = new RegExp(
  String.raw`(^|[\s;&?,'":]|\\[nrt])([A-Za-z0-9_.][A-Za-z0-9_.-]*)(\s*=\s*)` +
    String.raw`("(?:[^"]|"")*"|'(?:[^'\\]|\\.|'')*'|` +
    String.raw`${BARE_WORD}(?:\s+(?!(?:\\[nrt])?${NEXT_FIELD})[^;&\s]${BARE_WORD})*)`,
  "g",
);
const OPTION = /(^|[\s'"])(-{1,2}[A-Za-z0-9_.][A-Za-z0-9_.-]*)(=)("(?:[^"]|"")*"|'(?:[^'\\]|\\.|'')*'|[^\s'"]*)/g;

/** A switch's value, which no credential is: `-DENABLE_AUTH=1`, `-DUSE_AUTH=ON` in build flags. */
const SWITCH = /^(?:[01]|on|off|true|false|yes|no)$/i;

/**
 * Options named like a credential whose value is none, as fieldName gives them: GNU make's jobserver, which
 * a make hands its sub-makes in MAKEFLAGS (`-j8 --jobserver-auth=3,4`, `=fifo:/tmp/GMfifo123`): its file
 * descriptors, its fifo's path or its semaphore's name. A make given `***` there stops. (Before make 4.2
 * the option was `--jobserver-fds`, which no credential's word names.)
 */
const PLAIN_OPTIONS: ReadonlySet<string> = new Set(["JOBSERVER_AUTH"]);

/**
 * `text` with the value of every field whose name `isCredential` accepts replaced by `***` (empty values
 * stay empty). The name is given upper-cased, with leading dashes dropped and `-` and `.` read as `_`
 * (`--db-password` → `DB_PASSWORD`, `X-Api-Key` → `X_API_KEY`). Pure.
 */
export function scrubCredentialFields(text: string, isCredential: (name: string) => boolean): string {
  if (!text.includes("=")) return text;
  const options = text.replace(OPTION, (whole: string, before: string, name: string, equals: string, value: string) => {
    const option = fieldName(name);
    return value === "" || SWITCH.test(value) || PLAIN_OPTIONS.has(option) || !isCredential(option)
      ? whole
      : `${before}${name}${equals}***`;
  });
  return scrubFields(options, isCredential);
}

/** `text` with the value of every FIELD whose name `isCredential` accepts replaced by `***`. Pure. */
function scrubFields(text: string, isCredential: (name: string) => boolean): string {
  const closeOf = bracedEnds(text);
  let out = "";
  let kept = 0;
  FIELD.lastIndex = 0;
  for (let match = FIELD.exec(text); match; match = FIELD.exec(text)) {
    const [whole, before = "", name = "", equals = ""] = match;
    const start = match.index + before.length + name.length + equals.length;
    let end = match.index + whole.length;
    if (text[start] === "{") {
      const close = closeOf(start + 1);
      if (close >= 0) end = close + 1;
    }
    FIELD.lastIndex = end;
    if (end > start && isCredential(fieldName(name))) {
      out += `${text.slice(kept, start)}***`;
      kept = end;
    }
  }
  return out + text.slice(kept);
}

/**
 * Where a braced value (`{…}`, `}}` inside) starting before `from` closes: at the last `}` of the first run
 * of `}` after it whose length is odd (an even run is `}}` pairs, inside); when every run left is even, at
 * the text's last `}` but one (its last pair read as `}` and one more); -1 when no `}` follows, and the
 * value reads as a bare one. Asked with `from` growing, as FIELD's matches move on.
 *
 * Security: linear: the text is scanned once for all the values. A pattern that looked for the closing `}`
 * would scan to the text's end from every `name={` when none follows (`a={x;b={x;…`).
 */
function bracedEnds(text: string): (from: number) => number {
  const last = text.lastIndexOf("}");
  // The first odd run at or after the last `from` asked: its start and its last `}`; scanned up to `scanned`.
  let run = -1;
  let close = -1;
  let scanned = 0;
  return (from) => {
    if (from > last) return -1;
    if (run >= from) return close;
    for (let at = text.indexOf("}", Math.max(from, scanned)); at >= 0; ) {
      let end = at;
      while (text[end + 1] === "}") end++;
      if ((end - at) % 2 === 0) {
        run = at;
        close = end;
        scanned = end + 1;
        return close;
      }
      at = text.indexOf("}", end + 1);
    }
    scanned = text.length;
    return last - 1;
  };
}

/**
 * `text` with the value of every field of a URL's query whose name `isCredential` accepts replaced by `***`
 * (empty values stay empty), the field's name and the rest of the URL kept: for names that are a credential
 * in a URL only (Google APIs' `?key=AIza…&alt=json` → `?key=***&alt=json`), an ordinary word elsewhere
 * (`sort=key=name`, `*.key=01;31`). A URL is a word (up to a space or a quote) holding `://`; its fields
 * follow its first `?` and are split at `&`, `;`, `#` and `?` (a fragment's `#access_token=…`, a URL in a
 * query's value). Names are given as scrubCredentialFields gives them. Pure.
 *
 * Security: linear: each word is scanned once, and each of its fields once.
 */
export function scrubUrlQueryFields(text: string, isCredential: (name: string) => boolean): string {
  if (!text.includes("://")) return text;
  return text.replace(WORD, (word) => {
    const scheme = word.indexOf("://");
    const query = scheme < 0 ? -1 : word.indexOf("?", scheme);
    if (query < 0) return word;
    const fields = word
      .slice(query)
      .replace(QUERY_FIELD, (whole, before: string, name: string, value: string) =>
        value === "" || !isCredential(fieldName(name)) ? whole : `${before}${name}=***`,
      );
    return word.slice(0, query) + fields;
  });
}

const WORD = /[^\s'"<>`]+/g;
const QUERY_FIELD = /([?&;#])([^=?&;#\s]+)=([^?&;#\s]*)/g;

function fieldName(name: string): string {
  return name.replace(/^-+/, "").replace(/[-.]/g, "_").toUpperCase();
}
