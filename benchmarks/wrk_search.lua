-- wrk script: GET /v1/search cycling the 10 questions of benchmarks/serve.py (QUESTIONS), URL-encoded.
--   YAKSA_RATE_PER_SEC=0 yaksa serve --workers 2 &
--   wrk -t2 -c8 -d10s -s benchmarks/wrk_search.lua http://127.0.0.1:8000
-- Why: wrk is a C load generator, so on a small machine it leaves the cores to the server, where the
-- Python client of serve.py becomes the limit first.
local questions = {
  "두통에 먹는 약 알려줘", "타이레놀 복용법", "감기약 부작용", "임산부가 먹어도 되는 진통제",
  "위장약 복용 시 주의사항", "소화제 추천", "알레르기 약 졸림", "What are the symptoms of diabetes?",
  "How is high blood pressure treated?", "어린이 해열제 용량",
}
local function encode(s)
  return (s:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
local paths = {}
for i, q in ipairs(questions) do paths[i] = "/v1/search?q=" .. encode(q) end
local sent = 0
request = function()
  sent = sent + 1
  return wrk.format("GET", paths[(sent % #paths) + 1])
end
