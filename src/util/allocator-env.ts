/**
 * The allocator's documented setting, before anything large is allocated or freed: memory that
 * JavaScriptCore frees goes back to the system at once (`MIMALLOC_PURGE_DELAY=0`) instead of after a
 * delay that an idle server never reaches. Without it a server at 10,000 skills idled about 45 MB higher
 * after its start-up jobs (bench/listing.ts: settled RSS). A value the user set is kept.
 */
process.env.MIMALLOC_PURGE_DELAY ??= "0";
