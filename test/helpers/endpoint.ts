import type { AnalyticsEvent } from "../../src/analytics/event.ts";

export interface Endpoint {
  url: string;
  /** Bodies received with a 2xx answer, in order. */
  batches: AnalyticsEvent[][];
  /** Every request received, answered or not. */
  requests: number;
  /** Status to answer with from now on; "hang" never answers. */
  mode: number | "hang";
  events(): AnalyticsEvent[];
  stop(): void;
}

/** A real analytics endpoint on a loopback port (Bun.serve on port 0). */
export function analyticsEndpoint(): Endpoint {
  const state: Endpoint = {
    url: "",
    batches: [],
    requests: 0,
    mode: 200,
    events: () => state.batches.flat(),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      state.requests++;
      const body = (await request.json()) as { events: AnalyticsEvent[] };
      if (state.mode === "hang") return new Promise<Response>(() => undefined);
      if (state.mode >= 200 && state.mode < 300) state.batches.push(body.events);
      return new Response(null, { status: state.mode });
    },
  });
  state.url = `http://127.0.0.1:${server.port}/hooks/skills-usage?key=secret-in-query`;
  return state;
}
