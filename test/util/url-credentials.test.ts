import { describe, expect, test } from "bun:test";
import { scrubUrlCredentials } from "../../src/util/url-credentials.ts";

/** A decoy access token the size of an Entra ID one (a JWT of about 1.3 KB). */
const jwt = `eyJ${"DECOYjwt".repeat(160)}`;

describe("scrubUrlCredentials: long user information", () => {
  test.each([
    [`postgres://app:${jwt}@h.postgres.database.azure.com/app`, "postgres://app:***@h.postgres.database.azure.com/app"],
    [`https://${jwt}@github.com/o/r.git`, "https://***@github.com/o/r.git"],
    [`https://x:${jwt}@host`, "https://***@host"],
    [`DATABASE_URL=postgres://app:${jwt}@db/app other`, "DATABASE_URL=postgres://app:***@db/app other"],
  ])("a token of any length as a password or user name is hidden (%#)", (input, expected) => {
    expect(scrubUrlCredentials(input)).toBe(expected);
  });

  test("a long password holding an @ is hidden up to the last @, however far it lies", () => {
    const password = `ab@${"c".repeat(3000)}@d`;
    expect(scrubUrlCredentials(`ssh://deploy:${password}@host/r.git`)).toBe("ssh://deploy:***@host/r.git");
  });

  test("a long user information without @ is no credential and is kept", () => {
    const text = `https://${"h".repeat(5000)}:8080/x and ssh://${"g".repeat(5000)}`;
    expect(scrubUrlCredentials(text)).toBe(text);
  });
});

describe("scrubUrlCredentials: quotes", () => {
  test.each([
    ["postgres://app:it'sme@db/app", "postgres://app:***@db/app"],
    ["postgres://app:it`sme@db/app", "postgres://app:***@db/app"],
    ['postgres://app:say"hi"@db/app', "postgres://app:***@db/app"],
    ["https://u:pa'ss@host/x", "https://***@host/x"],
    ["ssh://o'brien:pw@host/r", "ssh://o'brien:***@host/r"],
    [`"postgres://app:it'sme@db/app"`, `"postgres://app:***@db/app"`],
    ["connect to postgres://app:it'sme@db now", "connect to postgres://app:***@db now"],
  ])("a quote in a password is part of it: %s", (input, expected) => {
    expect(scrubUrlCredentials(input)).toBe(expected);
  });

  test.each([
    "'https://host/x' and 'a@b'",
    "'https://host','a@b'",
    '["https://host","a@b"]',
    "`https://host`,`a@b`",
    "'ssh://host:22','git@b'",
  ])("a URL written in quotes ends at its closing quote: %s", (text) => {
    expect(scrubUrlCredentials(text)).toBe(text);
  });

  test.each([
    ["'https://u:p@host/x'", "'https://***@host/x'"],
    ['{"url":"https://u:p@host","mail":"a@b"}', '{"url":"https://***@host","mail":"a@b"}'],
    ["`ssh://deploy:p@host`", "`ssh://deploy:***@host`"],
  ])("a URL written in quotes still loses its credentials: %s", (input, expected) => {
    expect(scrubUrlCredentials(input)).toBe(expected);
  });
});

describe("scrubUrlCredentials: hostile text", () => {
  // One pass over the text: these complete whatever the machine's load; only the results are checked.
  const size = 1 << 20;

  test("a megabyte of schemes and @s", () => {
    const text = "a://@".repeat(size / 5);
    expect(scrubUrlCredentials(text)).toBe(text);
    const quoted = "'https://@".repeat(size / 10);
    expect(scrubUrlCredentials(quoted)).toBe(quoted);
  });

  test("a megabyte of user information", () => {
    const text = `https://${"a@".repeat(size / 2)}host/x`;
    expect(scrubUrlCredentials(text)).toBe("https://***@host/x");
    expect(scrubUrlCredentials(`ssh://${"a:".repeat(size / 2)}`)).toBe(`ssh://${"a:".repeat(size / 2)}`);
  });

  test("a megabyte of URLs with credentials, back to back", () => {
    const count = size / 12;
    expect(scrubUrlCredentials("https://u:p@".repeat(count))).toBe("https://***@".repeat(count));
    expect(scrubUrlCredentials("ssh://a:b@c".repeat(count))).toBe("ssh://a:***@c".repeat(count));
  });
});
