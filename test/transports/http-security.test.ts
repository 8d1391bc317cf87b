import { describe, expect, test } from "bun:test";
import {
  bearerAllowed,
  hostAllowed,
  hostPolicy,
  isLoopbackHost,
  originAllowed,
  pageViewer,
  refuseToBind,
  weakToken,
} from "../../src/transports/http-security.ts";

describe("isLoopbackHost", () => {
  test("127.0.0.0/8, ::1 and localhost are loopback; wildcards and LAN addresses are not", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]"])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of [
      "0.0.0.0",
      "::",
      "10.0.0.5",
      "192.168.1.2",
      "example.com",
      "127.0.0.1.nip.io",
      "localhost.example.com",
    ]) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });
});

describe("refuseToBind", () => {
  test("a non-loopback address without a token is refused with a message that says what to do", () => {
    const reason = refuseToBind("0.0.0.0", undefined);
    expect(reason).toContain("SKILLHUB_HTTP_TOKEN");
    expect(reason).toContain("--host 127.0.0.1");
    expect(refuseToBind("10.0.0.5", "")).toBeDefined();
    expect(refuseToBind("0.0.0.0", "a-long-random-token")).toBeUndefined();
    expect(refuseToBind("127.0.0.1", undefined)).toBeUndefined();
  });

  test("a token no client could send (whitespace in it) is refused on any address, saying why", () => {
    for (const token of ["a-long-random-token\r", "correct horse battery staple", "\ta-long-random-token", "abc\n"]) {
      const reason = refuseToBind("127.0.0.1", token);
      expect(reason, JSON.stringify(token)).toStartWith("SKILLHUB_HTTP_TOKEN holds a space, tab or line break");
      expect(refuseToBind("0.0.0.0", token)).toBe(reason);
      // Why: the client's header cannot carry it.
      expect(bearerAllowed(`Bearer ${token}`, token)).toBe(false);
    }
  });

  test("a token outside printable ASCII, which clients send as different bytes, is refused on any address, saying why", () => {
    for (const token of ["contraseña-0123456789", "tok\u0001en-0123456789", "токен-0123456789abcdef"]) {
      const reason = refuseToBind("127.0.0.1", token);
      expect(reason, JSON.stringify(token)).toStartWith(
        "SKILLHUB_HTTP_TOKEN holds a character outside printable ASCII",
      );
      expect(refuseToBind("0.0.0.0", token)).toBe(reason);
    }
    // Why: a client sending UTF-8 (curl) is read as Latin-1.
    const utf8 = new TextDecoder("latin1").decode(new TextEncoder().encode("contraseña-0123456789"));
    expect(bearerAllowed(`Bearer ${utf8}`, "contraseña-0123456789")).toBe(false);
    expect(refuseToBind("0.0.0.0", "A-z_0.9~+/=!#$%&'*")).toBeUndefined();
  });
});

describe("hostAllowed", () => {
  const loopback = hostPolicy({ bound: "127.0.0.1" });

  test("loopback names pass with any port; other names and malformed values do not", () => {
    // Another spelling of the same address is that address (a browser sends the URL's, which a page cannot
    // make a DNS name of).
    for (const h of ["127.0.0.1", "127.0.0.1:8000", "localhost:1", "[::1]:8000", "[0:0:0:0:0:0:0:1]", "2130706433"])
      expect(hostAllowed(h, loopback), h).toBe(true);
    for (const h of [
      null,
      "",
      "evil.example.com",
      "evil.example.com:8000",
      "localhost.evil.example",
      "localhost.",
      "app.localhost",
      "[::ffff:127.0.0.1]",
      "127.0.0.2",
      "localhost:99999",
      "user@localhost",
      "localhost/x",
      "10.0.0.5:8000",
    ]) {
      expect(hostAllowed(h, loopback), String(h)).toBe(false);
    }
  });

  test("a specific bound address and allowed_hosts entries pass; a port in an entry pins it", () => {
    const policy = hostPolicy({ bound: "10.0.0.5", allowedHosts: ["Skills.Example.com", "proxy.example.com:443"] });
    expect(hostAllowed("10.0.0.5:8000", policy)).toBe(true);
    expect(hostAllowed("skills.example.com", policy)).toBe(true);
    expect(hostAllowed("proxy.example.com:443", policy)).toBe(true);
    expect(hostAllowed("proxy.example.com:8443", policy)).toBe(false);
    expect(hostAllowed("10.0.0.6:8000", policy)).toBe(false);
  });

  test("a wildcard bind allows this machine's addresses, not every name", () => {
    const policy = hostPolicy({ bound: "0.0.0.0", localAddresses: ["buildbox", "10.1.2.3", "fe80::1"] });
    expect(hostAllowed("buildbox:8000", policy)).toBe(true);
    expect(hostAllowed("10.1.2.3:8000", policy)).toBe(true);
    expect(hostAllowed("[fe80::1]:8000", policy)).toBe(true);
    expect(hostAllowed("0.0.0.0:8000", policy)).toBe(false);
    expect(hostAllowed("evil.example.com", policy)).toBe(false);
  });
});

describe("originAllowed", () => {
  const policy = hostPolicy({ bound: "127.0.0.1", allowedOrigins: ["https://tools.example.com/"] });

  test("no Origin passes (not a browser); local pages and listed origins pass; others and null are refused", () => {
    expect(originAllowed(null, policy)).toBe(true);
    expect(originAllowed("http://localhost:6274", policy)).toBe(true);
    expect(originAllowed("http://127.0.0.1:8000", policy)).toBe(true);
    expect(originAllowed("https://tools.example.com", policy)).toBe(true);
    for (const o of [
      "null",
      "https://evil.example.com",
      "https://tools.example.com.evil.example",
      "http://localhost.:8000",
      "http://127.0.0.1.nip.io:8000",
      "http://localhost@evil.example.com",
      "file:///tmp/x.html",
      "not a url",
      "chrome-extension://abc",
    ]) {
      expect(originAllowed(o, policy), o).toBe(false);
    }
  });
});

describe("bearerAllowed", () => {
  test("without a configured token everything passes", () => {
    expect(bearerAllowed(null, undefined)).toBe(true);
  });

  test("only the exact token in a Bearer header passes", () => {
    const token = "0123456789abcdef0123456789abcdef";
    expect(bearerAllowed(`Bearer ${token}`, token)).toBe(true);
    expect(bearerAllowed(`bearer   ${token} `, token)).toBe(true);
    for (const h of [
      null,
      "",
      "Bearer",
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}0`,
      `Basic ${token}`,
      `Bearer ${token} extra`,
      token,
    ]) {
      expect(bearerAllowed(h, token), String(h)).toBe(false);
    }
  });
});

describe("pageViewer", () => {
  const token = "clients-token-0123456789abcdef";
  const admin = "operator-token-0123456789abcdef";
  const bearer = (t: string) => `Bearer ${t}`;

  test("the admin token is the operator, the clients' token a client, any other none", () => {
    expect(pageViewer(bearer(admin), token, admin)).toBe("operator");
    expect(pageViewer(bearer(token), token, admin)).toBe("client");
    for (const h of [null, bearer(`${admin}0`), bearer("wrong"), `Basic ${admin}`])
      expect(pageViewer(h, token, admin), String(h)).toBeUndefined();
    // No admin token set: the clients' token holder sees what any client may, and nobody more.
    expect(pageViewer(bearer(token), token, undefined)).toBe("client");
  });

  test("no token at all: this machine's one user is the operator; an admin token alone keeps the rest clients", () => {
    expect(pageViewer(null, undefined, undefined)).toBe("operator");
    expect(pageViewer(null, undefined, admin)).toBe("client");
    expect(pageViewer(bearer("anything"), undefined, admin)).toBe("client");
    expect(pageViewer(bearer(admin), undefined, admin)).toBe("operator");
  });
});

describe("the admin token's rules", () => {
  test("refused at start when no client could send it, or when it is the clients' token; warned of when short", () => {
    expect(refuseToBind("127.0.0.1", "clients-token-0123", "a b")).toContain("SKILLHUB_ADMIN_TOKEN holds a space");
    expect(refuseToBind("127.0.0.1", undefined, "caf\u00e9-token")).toContain("SKILLHUB_ADMIN_TOKEN holds a character");
    expect(refuseToBind("0.0.0.0", "same-token-0123456789", "same-token-0123456789")).toContain(
      "SKILLHUB_ADMIN_TOKEN is the same as SKILLHUB_HTTP_TOKEN",
    );
    expect(refuseToBind("0.0.0.0", "clients-token-0123456789", "operator-token-0123456789")).toBeUndefined();
    // An admin token does not stand in for the clients' one on the network.
    expect(refuseToBind("0.0.0.0", undefined, "operator-token-0123456789")).toContain("without a token");
    expect(weakToken("short", "SKILLHUB_ADMIN_TOKEN")).toStartWith("SKILLHUB_ADMIN_TOKEN is shorter than 16");
  });
});
