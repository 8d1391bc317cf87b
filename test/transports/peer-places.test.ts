import { describe, expect, test } from "bun:test";
import { PeerPlaces, peerShare } from "../../src/transports/peer-places.ts";

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
});
