-- A spectrogram of synthetic audio with torch.stft: two steady tones, a linear chirp and noise,
-- made with tensor ops; the power per frame from torch.complexAbs; the three strongest peaks of
-- each frame compared with the frequencies the signal was made of; the signal rebuilt by
-- torch.istft; the spectrogram written as a PNG (data.image.save).
--   tocha examples/spectrogram.lua [--seconds 4] [--nFft 256] [--out spectrogram_out] [--quick]
-- For a PyTorch reader: Tocha's stft returns PyTorch's return_complex=False layout, freq x frames
-- x 2 (real, imaginary); torch.complexAbs(z) is torch.view_as_complex(z).abs().
local data = require 'data'

local cmd = torch.CmdLine()
cmd:option('--seconds', 4, 'length of the signal')
cmd:option('--rate', 8000, 'sample rate (Hz)')
cmd:option('--nFft', 256, 'points per frame (frequency resolution rate / nFft)')
cmd:option('--out', 'spectrogram_out', 'folder for spectrogram.png')
cmd:option('--quick', false, 'a 1.5 s signal (a smoke test)')
local opt = cmd:parse(arg or {})
if opt.quick then opt.seconds = 1.5 end
torch.manualSeed(1)
os.execute('mkdir -p "' .. opt.out .. '"')

-- The signal: tones at 440 Hz and 2000 Hz, a chirp from 200 Hz to 3400 Hz, Gaussian noise.
local fs, T, nFft = opt.rate, opt.seconds, opt.nFft
local hop = math.floor(nFft / 4)
local tones = { { f = 440, a = 1.0 }, { f = 2000, a = 0.6 } }
local f0, f1, chirpAmp = 200, 3400, 0.8
local L = math.floor(T * fs)
local t = torch.range(0, L - 1):div(fs)                  -- torch.arange(L) / fs
local x = torch.randn(L):mul(0.02)
for _, tone in ipairs(tones) do x:add(torch.sin(t * (2 * math.pi * tone.f)):mul(tone.a)) end
-- chirp: phase 2 pi (f0 t + (f1 - f0) t^2 / 2T), so its frequency is f0 + (f1 - f0) t / T
local phase = (t * f0 + torch.pow(t, 2) * ((f1 - f0) / (2 * T))) * (2 * math.pi)
x:add(torch.sin(phase):mul(chirpAmp))

-- torch.stft(x, n_fft, hop_length=hop, window=torch.hann_window(n_fft), return_complex=False)
local window = torch.hannWindow(nFft)
local timer = torch.Timer()
local S = torch.stft(x, nFft, { hopLength = hop, window = window })
local power = torch.pow(torch.complexAbs(S), 2)          -- freq x frames
local nFreq, nFrames = power:size(1), power:size(2)
print(string.format('%.1f s at %d Hz: %d frequency bins (%.2f Hz each) x %d frames of %d points, hop %d (%.1f ms)',
  T, fs, nFreq, fs / nFft, nFrames, nFft, hop, 1000 * timer:time().real))

-- Peaks: bins larger than both neighbours (a local maximum), then the 3 largest per frame.
local mid = power:narrow(1, 2, nFreq - 2)
local isPeak = torch.gt(mid, power:narrow(1, 1, nFreq - 2)):cmul(torch.ge(mid, power:narrow(1, 3, nFreq - 2)))
local peaks = torch.cmul(mid, isPeak:typeAs(mid))
local _, idx = torch.topk(peaks, 3, 1, true)              -- torch.topk(peaks, 3, dim=0): largest
-- idx counts from power's row 2, so it is the 0-based bin: frequency = bin * fs / nFft
local bins = idx:double()

-- Frame j is centred on sample (j - 1) * hop (center = true). Compare each frame's peaks, sorted,
-- with the known frequencies, sorted, in bins; skip frames where the chirp is within 3 bins of a
-- tone (two peaks merge) and the first and last 2 frames (reflect padding).
local binHz = fs / nFft
local compared, matched, worst = 0, 0, 0
print('frame   time   found peaks (Hz)        expected (Hz)')
for j = 3, nFrames - 2 do
  local tc = (j - 1) * hop / fs
  local want = { tones[1].f / binHz, tones[2].f / binHz, (f0 + (f1 - f0) * tc / T) / binHz }
  table.sort(want)
  local near = math.min(math.abs(want[2] - want[1]), math.abs(want[3] - want[2])) < 3
  if not near then
    local got = bins:select(2, j):totable()
    table.sort(got)
    local err = 0
    for k = 1, 3 do err = math.max(err, math.abs(got[k] - want[k])) end
    compared, worst = compared + 1, math.max(worst, err)
    if err <= 1 then matched = matched + 1 end
    if j % math.floor(nFrames / 8) == 0 then
      print(string.format('%5d  %5.2fs  %5.0f %5.0f %5.0f       %5.0f %5.0f %5.0f', j, tc, got[1] * binHz,
        got[2] * binHz, got[3] * binHz, want[1] * binHz, want[2] * binHz, want[3] * binHz))
    end
  end
end
print(string.format('%d of %d frames have their 3 peaks within one bin of the known frequencies (worst %.2f bins)',
  matched, compared, worst))

-- torch.istft(S, n_fft, hop_length=hop, window=..., length=L): overlap-add back to the signal.
local y = torch.istft(S, nFft, { hopLength = hop, window = window, length = L })
local recon = (y - x):abs():max()
print(string.format('istft reconstruction: max |x - istft(stft(x))| = %.3g', recon))

-- The picture: power in dB over a 60 dB range, low frequencies at the bottom, a black-red-
-- yellow-white colour map (each channel a ramp over one third of the range).
local db = torch.log10(power + 1e-12):mul(10)
local top = db:max()
local v = torch.clamp(db, top - 60, top):add(60 - top):div(60)
v = torch.flip(v, { 1 })
local rgb = torch.stack({ torch.clamp(v * 3, 0, 1), torch.clamp(v * 3 - 1, 0, 1), torch.clamp(v * 3 - 2, 0, 1) }, 1)
local path = opt.out .. '/spectrogram.png'
data.image.save(path, rgb)
print(string.format('wrote %s (%d x %d pixels: time across, frequency up)', path, nFrames, nFreq))

if matched < compared or compared < nFrames / 2 or recon > 1e-4 then
  io.stderr:write(string.format('%d of %d frames match (expected all, and at least half the frames compared); '
    .. 'reconstruction error %.3g (expected < 1e-4)\n', matched, compared, recon))
  os.exit(1)
end
