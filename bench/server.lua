-- wrk script for bench/server.sh: POST distinct valid reports. The bodies
-- are precomputed canonical, schema-valid reports (BENCH_TEMPLATES, one per
-- line) whose report_id is "@@ID@@"; each request puts in a report id of its
-- own (thread number + counter, a valid version-4 UUID), so every 201 is a
-- new row and nothing is answered 200 as a repeat.
-- wrk shares the two CPUs with the server, so the whole request (headers
-- and body) is formatted once per template and only the id is put in per
-- request: a gsub over 2 KB and a wrk.format per request cost the server
-- a fifth of the CPU it could have.
local ID_LEN = 36
local heads, tails = {}, {}
local counter = 0
tid = 0
local threads = {}

-- BENCH_TID_BASE: another wrk beside this one (two collectors on one
-- database) numbers its threads from there, so no id is sent twice.
local tid_base = tonumber(os.getenv("BENCH_TID_BASE") or "0")

function setup(thread)
	tid = tid + 1
	thread:set("tid", tid + tid_base)
	table.insert(threads, thread)
end

function init(args)
	local f = assert(io.open(os.getenv("BENCH_TEMPLATES"), "r"))
	local hole = string.rep("#", ID_LEN)
	wrk.method = "POST"
	wrk.headers["Content-Type"] = "application/json"
	for line in f:lines() do
		local at = assert(line:find("@@ID@@", 1, true))
		local body = line:sub(1, at - 1) .. hole .. line:sub(at + 6)
		local req = wrk.format(nil, "/api/v1/reports", nil, body)
		local h = assert(req:find(hole, 1, true))
		table.insert(heads, req:sub(1, h - 1))
		table.insert(tails, req:sub(h + ID_LEN))
	end
	f:close()
	n201, n200, nother = 0, 0, 0
end

function request()
	counter = counter + 1
	-- version-4 UUID: thread id and counter make it unique across threads
	local id = string.format("%08x-0000-4000-8000-%012x", tid, counter)
	local i = (counter % #heads) + 1
	return heads[i] .. id .. tails[i]
end

function response(status, headers, body)
	if status == 201 then n201 = n201 + 1
	elseif status == 200 then n200 = n200 + 1
	else nother = nother + 1 end
end

function done(summary, latency, requests)
	local c201, c200, cother = 0, 0, 0
	for _, t in ipairs(threads) do
		c201 = c201 + t:get("n201")
		c200 = c200 + t:get("n200")
		cother = cother + t:get("nother")
	end
	local secs = summary.duration / 1e6
	io.write(string.format("RESULT created=%d ok=%d other=%d errors=%d secs=%.2f rate=%.0f p50_ms=%.2f p99_ms=%.2f\n",
		c201, c200, cother, summary.errors.connect + summary.errors.read + summary.errors.write +
		summary.errors.timeout, secs, c201 / secs, latency:percentile(50) / 1000,
		latency:percentile(99) / 1000))
end
