import { describe, expect, test } from "bun:test";
import { LOOPBACK_PEER, PeerPlaces, peerKey, peerShare } from "../../src/transports/peer-places.ts";

describe("PeerPlaces", () => {
  test("one address's share is a quarter of the table, at least one", () => {
    expect([1000, 1024, 12, 8, 3, 1].map(peerShare)).toEqual([250, 256, 3, 2, 1, 1]);
    expect(new PeerPlaces(8).maxPerPeer).toBe(2);
    expect(new PeerPlaces(8, 5).maxPerPeer).toBe(5);
  });

  test("a place counts from the moment it is taken, until it is released, once", () => {
    const places = new PeerPlaces(4, 2);
    const a = places.take("a");
    const b = places.take("a");
    expect(places.take("a")).toBe("peer-full");
    const others = [places.take("b"), places.take("c")];
    expect(places.take("d")).toBe("full");
    if (typeof a === "string" || typeof b === "string") throw new Error("no place");
    a.release();
    a.release();
    expect(places.size).toBe(3);
    expect(typeof places.take("d")).toBe("object");
    expect(places.take("e")).toBe("full");
    expect(others.every((p) => typeof p === "object")).toBe(true);
  });

  test("an IPv6 client counts by its /64 network, which one machine picks its addresses in; IPv4 by its address", () => {
    expect(peerKey("10.0.0.7")).toBe("10.0.0.7");
    expect(peerKey("::ffff:10.0.0.7")).toBe("10.0.0.7");
    expect(peerKey("::FFFF:10.0.0.7")).toBe("10.0.0.7");
    const network = peerKey("2001:db8:1:2::1");
    for (const address of ["2001:db8:1:2:a:b:c:d", "2001:0db8:0001:0002::ffff", "2001:DB8:1:2::1%eth0"])
      expect(peerKey(address), address).toBe(network);
    expect(network).toBe("2001:db8:1:2::/64");
    for (const address of ["2001:db8:1:3::1", "2001:db8::1", "::1", "fe80::1"])
      expect(peerKey(address), address).not.toBe(network);
    expect(peerKey("1:2:3::10.0.0.7")).toBe("1:2:3:0::/64");
    expect(peerKey("")).toBe("");
    // So a machine changing address within its /64 holds one share.
    const places = new PeerPlaces(8, 2);
    expect(typeof places.take("2001:db8:1:2::1")).toBe("object");
    expect(typeof places.take("2001:db8:1:2::2")).toBe("object");
    expect(places.take("2001:db8:1:2::3")).toBe("peer-full");
    expect(typeof places.take("2001:db8:1:3::1")).toBe("object");
  });

  test("every loopback address is one client: any process of this machine may use any of them", () => {
    for (const address of ["127.0.0.1", "127.0.0.9", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.5"])
      expect(peerKey(address), address).toBe(LOOPBACK_PEER);
    for (const address of ["10.127.0.1", "128.0.0.1", "::ffff:10.0.0.1", "::2", "1::1", "fe80::1"])
      expect(peerKey(address), address).not.toBe(LOOPBACK_PEER);
    const places = new PeerPlaces(8, 2);
    expect(typeof places.take("127.0.0.2")).toBe("object");
    expect(typeof places.take("::1")).toBe("object");
    expect(places.take("127.0.0.3")).toBe("peer-full");
    expect(places.take("::ffff:127.0.0.4")).toBe("peer-full");
    expect(typeof places.take("10.0.0.1")).toBe("object");
  });
});
