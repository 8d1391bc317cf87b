import { describe, expect, test } from "bun:test";
import { cutCandidates, type RankedHit } from "../../src/search/engine.ts";
import { RRF_DEPTH, reciprocalRankFusion } from "../../src/search/fusion.ts";
import { searchByMode } from "../../src/search/modes.ts";
import { fakeSkill } from "../helpers/skill.ts";

const hit = (name: string, score = 0.5, terms: string[] = []): RankedHit => ({ skill: fakeSkill(name), score, terms });
const names = (hits: readonly RankedHit[]) => hits.map((h) => h.skill.name);

describe("reciprocal rank fusion", () => {
  test("first in both lists scores 1; a skill in both beats one high in a single list", () => {
    const fused = reciprocalRankFusion([
      [hit("a", 0.9, ["x"]), hit("b"), hit("c")],
      [hit("a", 0.2), hit("c"), hit("d")],
    ]);
    expect(names(fused)).toEqual(["a", "c", "b", "d"]);
    expect(fused[0]?.score).toBeCloseTo(1, 10);
    expect(fused[0]?.terms).toEqual(["x"]);
    for (const h of fused) expect(h.score).toBeLessThanOrEqual(1);
  });

  test("only ranks count, not the lists' score scales", () => {
    const a = reciprocalRankFusion([
      [hit("a", 100), hit("b", 1)],
      [hit("b", 0.9), hit("a", 0.89)],
    ]);
    expect(a[0]?.score).toBe(a[1]?.score as number);
  });
});

describe("search_skills' cut applies to every mode", () => {
  test("limit*4 candidates; over 5, score/top >= threshold; top limit, rounded", () => {
    const ordered = ["a", "b", "c", "d", "e", "f", "g"].map((n, i) => hit(n, 1 - i * 0.15 + 0.00001));
    expect(names(cutCandidates(ordered, { limit: 10, threshold: 0.2 }))).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(names(cutCandidates(ordered.slice(0, 5), { limit: 10, threshold: 0.99 }))).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
    expect(cutCandidates(ordered, { limit: 2, threshold: 0 }).map((h) => h.score)).toEqual([1, 0.85]);
  });

  test("vector and hybrid use the vectors; fts never asks for them; any failure is full text with the reason", async () => {
    const skills = [fakeSkill("a"), fakeSkill("b")];
    let asked = 0;
    const vectors = {
      unavailable: () => undefined,
      similar: async () => {
        asked++;
        return [
          { skill: skills[1] as never, similarity: 0.8 },
          { skill: skills[0] as never, similarity: -0.1 },
        ];
      },
    };
    const input = {
      query: " b  things ",
      options: { limit: 10, threshold: 0 },
      skills,
      fullText: (depth?: number) => {
        depths.push(depth);
        return [hit("a", 0.7)];
      },
      vectors,
    };
    const depths: (number | undefined)[] = [];
    expect(await searchByMode({ ...input, mode: "fts" })).toMatchObject({ mode: "fts", hits: [{ score: 0.7 }] });
    expect(asked).toBe(0);
    const vector = await searchByMode({ ...input, mode: "vector" });
    expect(vector.mode).toBe("vector");
    expect(vector.hits.map((h) => [h.skill.name, h.score])).toEqual([
      ["b", 0.8],
      ["a", 0],
    ]);
    expect(vector.hits[0]?.terms).toEqual(["thing"]);
    expect((await searchByMode({ ...input, mode: "hybrid" })).mode).toBe("hybrid");
    // Full text reads what the cut needs; hybrid asks for the depth it fuses.
    expect(depths).toEqual([undefined, RRF_DEPTH]);
    const failing = { ...vectors, similar: async () => Promise.reject(new Error("HTTP 500 from x")) };
    expect(await searchByMode({ ...input, mode: "vector", vectors: failing })).toMatchObject({
      mode: "fts",
      fallbackReason: "query embedding failed: HTTP 500 from x",
    });
    const notReady = { ...vectors, unavailable: () => "vectors not ready yet (0 of 2 skills embedded)" };
    expect(await searchByMode({ ...input, mode: "hybrid", vectors: notReady })).toMatchObject({
      mode: "fts",
      fallbackReason: "vectors not ready yet (0 of 2 skills embedded)",
    });
  });
});
