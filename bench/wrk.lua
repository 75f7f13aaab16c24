-- wrk.lua: the request of one benchmark case, and a machine-readable summary.
-- Configured by the environment (bench/run.sh sets it):
--   BL_METHOD     GET, POST or DELETE
--   BL_PATH       path, or path prefix when a key is appended
--   BL_KEY        one key appended to BL_PATH on every request
--   BL_KEYS       file of "secretKey receiptKey" lines: every request takes the
--                 next unused one (threads take disjoint slices)
--   BL_KEY_COL    1 (secretKey, default) or 2 (receiptKey) of BL_KEYS
--   BL_KEY_PICK   "random": every request takes a key of BL_KEYS drawn at
--                 random (a pool of unlimited secrets), none used up
--   BL_BODY       file whose contents are the JSON request body
--   BL_THREADS    wrk's -t, so the threads can split BL_KEYS
--   BL_HEADER     one more request header, "Name:value" (no spaces: PrivateBin's
--                 "X-Requested-With:JSONHttpRequest")
--   BL_VARY       a string in BL_BODY: the 16 characters after it are replaced
--                 by random base64 characters on every request (PrivateBin
--                 names a paste by its ciphertext and refuses a second one)
--   BL_EXPECT     a string a good response's body contains: a 200 without it
--                 counts as bad (PrivateBin answers its errors with 200 and
--                 "status":1)
-- Every request carries X-Forwarded-For with an IPv4 address drawn at random
-- from 16,256 (10.0.0-63.1-254): the programs trust 127.0.0.1 as a proxy, so
-- the rate limiter counts every request (as deployed) without refusing the
-- benchmark after 1000 a day from one address. A new address for every
-- request filled the counters file (131,072 slots, a day's window each:
-- docs/ADMIN.md) within a FastCGI run of ~20 s, which then answered 503
-- RATE_LIMIT_UNAVAILABLE, as it must; a pool is also what a server sees:
-- the same clients again.

local threads = {}
local counter = 0

function setup(thread)
	thread:set("id", counter)
	counter = counter + 1
	table.insert(threads, thread)
end

local method = os.getenv("BL_METHOD") or "GET"
local path = os.getenv("BL_PATH") or "/"
local key = os.getenv("BL_KEY")
local keys = nil
local pick = os.getenv("BL_KEY_PICK")
local nextkey = 1
local body = nil
local headers = {}
local expect = os.getenv("BL_EXPECT")
local vary = nil
local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
bad = 0
statuses = {}

function init(args)
	local nthreads = tonumber(os.getenv("BL_THREADS") or "1")
	local col = tonumber(os.getenv("BL_KEY_COL") or "1")
	local kf = os.getenv("BL_KEYS")
	if kf then
		keys = {}
		local i = 0
		for line in io.lines(kf) do
			if i % nthreads == id then
				local s, r = line:match("^(%S+)%s+(%S+)")
				table.insert(keys, col == 2 and r or s)
			end
			i = i + 1
		end
	end
	local bf = os.getenv("BL_BODY")
	if bf then
		local f = assert(io.open(bf, "rb"))
		body = f:read("*a")
		f:close()
		headers["Content-Type"] = "application/json"
		local m = os.getenv("BL_VARY")
		if m then
			local at = body:find(m, 1, true)
			assert(at and #body >= at + #m + 16, "BL_VARY: not in the body")
			vary = at + #m
		end
	elseif method ~= "GET" then
		-- as fetch() sends an empty POST or DELETE (lighttpd answers 411 without)
		body = ""
	end
	local h = os.getenv("BL_HEADER")
	if h then
		local n, v = h:match("^([^:]+):%s*(.*)$")
		headers[n] = v
	end
	math.randomseed(os.time() * 100 + id)
end

function request()
	local p = path
	if keys and pick == "random" then
		p = path .. keys[math.random(1, #keys)]
	elseif keys then
		-- Past the end the keys repeat: those requests fail (410) and are counted.
		p = path .. keys[(nextkey - 1) % #keys + 1]
		nextkey = nextkey + 1
	elseif key then
		p = path .. key
	end
	local b = body
	if vary then
		local r = {}
		for i = 1, 16 do
			local k = math.random(1, 64)
			r[i] = b64chars:sub(k, k)
		end
		b = body:sub(1, vary - 1) .. table.concat(r) .. body:sub(vary + 16)
	end
	headers["X-Forwarded-For"] = string.format("10.0.%d.%d",
		math.random(0, 63), math.random(1, 254))
	return wrk.format(method, p, headers, b)
end

function response(status, hdrs, b)
	if status ~= 200 then
		bad = bad + 1
		statuses[status] = (statuses[status] or 0) + 1
	elseif expect and not (b and b:find(expect, 1, true)) then
		-- reported as status 299: a 200 whose body is not the expected answer
		bad = bad + 1
		statuses[299] = (statuses[299] or 0) + 1
	end
end

function done(summary, latency, requests)
	local nbad, codes = 0, {}
	for _, t in ipairs(threads) do
		nbad = nbad + (t:get("bad") or 0)
		local sc = t:get("statuses")
		if sc then
			for k, v in pairs(sc) do codes[k] = (codes[k] or 0) + v end
		end
	end
	local cs = {}
	for k, v in pairs(codes) do table.insert(cs, k .. ":" .. v) end
	local e = summary.errors
	io.write(string.format("RESULT requests=%d duration_us=%d rps=%.1f p50_ms=%.3f p99_ms=%.3f mean_ms=%.3f bad=%d sockerr=%d codes=%s\n",
		summary.requests, summary.duration,
		summary.requests / (summary.duration / 1e6),
		latency:percentile(50) / 1000, latency:percentile(99) / 1000,
		latency.mean / 1000, nbad,
		e.connect + e.read + e.write + e.timeout,
		#cs > 0 and table.concat(cs, ",") or "-"))
end
