-- nn.ops' RoI pooling (lua/nn/ops/roi.lua, roi_ps.lua, poolers.lua): roiAlign, roiPool,
-- psRoiAlign, psRoiPool, their modules and MultiScaleRoIAlign against torchvision 0.14 (PyTorch
-- 1.13) in float64, boxes inside, across and outside the image, tiny and empty bins, aligned and
-- not, fixed and adaptive sampling, spatial scales; gradients of a weighted sum against
-- torchvision's (checksums) and gradchecks on small cases; the 1-based batch column (Note [Batch
-- indices of boxes]), the list-of-boxes form, empty inputs and errors naming the function; CUDA
-- against the CPU when a device is present. References (full values or, for larger outputs, the
-- sum, a weighted sum and the first elements) come from this script:
--
-- # Reference values for tests/lua/test_vision_ops_roi.lua (PyTorch 1.13, torchvision 0.14, float64).
-- import torch, torchvision.ops as O
-- D = torch.float64
-- def L(t):
--     if t.dim() == 0: return repr(t.item())
--     return '{' + ', '.join(L(x) for x in t) + '}'
-- def seq(shape, a, b):
--     n = 1
--     for s in shape: n *= s
--     return torch.sin(a * torch.arange(n, dtype=D) + b).reshape(shape)
-- def C(t):  # a checksum of a larger tensor: its sum, a weighted sum and its first 4 elements
--     w = seq(t.shape, 0.13, 0.7)
--     return '{sum = %r, wsum = %r, first = %s}' % (t.sum().item(), (t * w).sum().item(), L(t.flatten()[:4]))
-- x = seq((2, 3, 10, 12), 0.37, 0.3)
-- # 0-based batch column for torchvision; the Lua test adds 1
-- rois = torch.tensor([[0, 1.2, 0.7, 7.9, 6.3], [1, -3, -2, 5.5, 4], [1, 8.5, 6, 20, 14], [0, 3, 3, 3.2, 3.1],
--                      [1, 0, 0, 11, 9], [0, 10.9, 8.8, 11.6, 9.9]], dtype=D)
-- print('align_a =', L(O.roi_align(x, rois, (2, 3), 1.0, -1, False)))
-- print('align_b =', C(O.roi_align(x, rois, (3, 2), 0.5, 2, True)))
-- print('align_c =', C(O.roi_align(x, rois, 4, 1.3, -1, True)))
-- print('align_d =', C(O.roi_align(x, rois, (1, 2), 0.7, 3, False)))
-- print('pool_a =', L(O.roi_pool(x, rois, (2, 3), 1.0)))
-- print('pool_b =', C(O.roi_pool(x, rois, (3, 4), 0.5)))
-- print('pool_c =', C(O.roi_pool(x, rois, 2, 1.6)))
-- w = seq((6, 3, 2, 3), 0.91, 0.1)
-- xx = x.clone().requires_grad_()
-- (O.roi_align(xx, rois, (2, 3), 0.8, -1, True) * w).sum().backward()
-- g = xx.grad
-- print('align_grad_sum =', repr(g.sum().item()), '; align_grad_w =', repr((g * seq(g.shape, 0.23, 0.4)).sum().item()))
-- xx = x.clone().requires_grad_()
-- (O.roi_pool(xx, rois, (2, 3), 0.8) * w).sum().backward()
-- g = xx.grad
-- print('pool_grad_sum =', repr(g.sum().item()), '; pool_grad_w =', repr((g * seq(g.shape, 0.23, 0.4)).sum().item()))
-- # list-of-boxes form
-- bl = [rois[rois[:, 0] == 0, 1:], rois[rois[:, 0] == 1, 1:]]
-- print('align_list =', L(O.roi_align(x, bl, (2, 2), 1.0, 2, False)))
-- xp = seq((2, 12, 10, 12), 0.37, 0.3)
-- print('psalign_a =', C(O.ps_roi_align(xp, rois, (2, 3), 1.0, -1)))
-- print('psalign_b =', C(O.ps_roi_align(xp, rois, (2, 2), 0.6, 2)))
-- print('pspool_a =', C(O.ps_roi_pool(xp, rois, (2, 3), 1.0)))
-- print('pspool_b =', C(O.ps_roi_pool(xp, rois, (3, 2), 1.7)))
-- xx = xp.clone().requires_grad_()
-- w2 = seq((6, 2, 2, 3), 0.91, 0.1)
-- (O.ps_roi_align(xx, rois, (2, 3), 0.8, -1) * w2).sum().backward()
-- g = xx.grad
-- print('psalign_grad_w =', repr((g * seq(g.shape, 0.23, 0.4)).sum().item()))
-- xx = xp.clone().requires_grad_()
-- (O.ps_roi_pool(xx, rois, (2, 3), 0.8) * w2).sum().backward()
-- g = xx.grad
-- print('pspool_grad_w =', repr((g * seq(g.shape, 0.23, 0.4)).sum().item()))
-- from collections import OrderedDict
-- # MultiScaleRoIAlign: three levels of a 64 x 80 image
-- feats = OrderedDict([('p2', seq((2, 2, 16, 20), 0.21, 0.0)), ('p3', seq((2, 2, 8, 10), 0.33, 0.2)), ('p4', seq((2, 2, 4, 5), 0.17, 0.4)), ('pool', seq((2, 2, 2, 3), 0.1, 0.0))])
-- boxes = [torch.tensor([[1.0, 2, 10, 9], [0, 0, 60, 50], [5, 5, 40, 33]], dtype=D), torch.tensor([[3.0, 4, 20, 30], [10, 12, 79, 63]], dtype=D)]
-- ms = O.MultiScaleRoIAlign(['p2', 'p3', 'p4'], 2, 2, canonical_scale=32, canonical_level=3)
-- print('ms =', L(ms(feats, boxes, [(64, 80), (60, 70)])))
-- print('ms_scales =', '{' + ', '.join(map(repr, ms.scales)) + '}')
-- ms1 = O.MultiScaleRoIAlign(['p3'], (2, 3), -1)
-- print('ms1 =', L(ms1(feats, boxes, [(64, 80)])))
require 'nn.ops'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
-- Shared checks (helpers/vision_ops_checks.lua).
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_ops_checks.lua')(tester)
local seq, fails, gradcheck = C.seq, C.fails, C.gradcheck

local R = {}
R.align_a = {{{{-0.042931727980258336, -0.15864110499628978, -0.17298824401569726}, {-0.1792205890846622, -0.09862244464291803, 0.045231473280772656}}, {{-0.11093702943198393, -0.18077383006733808, -0.13500854877060323}, {-0.15124328844713814, -0.028332363110336316, 0.1129089491925577}}, {{-0.15986631315573765, -0.17182185055620025, -0.07381365222651273}, {-0.09725916514248985, 0.04682956927074473, 0.1611713287431725}}}, {{{0.15075027494018162, 0.4548054630198249, 0.18640870845791807}, {-0.002688038329027186, -0.046025102682589275, -0.08884809399226257}}, {{0.16058029312157643, 0.39617570949532804, -0.0005799172906160536}, {-0.014996986852725066, -0.07259423959668038, -0.08023465134858165}}, {{0.1427979573934164, 0.2694221302615858, -0.18746882419348954}, {-0.024727150019238735, -0.08668053819622898, -0.057824574349714525}}}, {{{0.17647243244979577, 0.0, 0.0}, {0.0, 0.0, 0.0}}, {{0.17026242620712104, 0.0, 0.0}, {0.0, 0.0, 0.0}}, {{0.1347751887517024, 0.0, 0.0}, {0.0, 0.0, 0.0}}}, {{{0.6819094871106269, 0.6441927144833639, 0.6064759418561008}, {0.4730609330518251, 0.5320201307540684, 0.5909793284563116}}, {{0.5332462885535428, 0.4661694750951919, 0.399092661636841}, {0.6510226246060132, 0.6779869843720934, 0.7049513441381734}}, {{0.29288948952862776, 0.20798673245830013, 0.12308397538797262}, {0.7170386548072403, 0.707371558840962, 0.6977044628746839}}}, {{{0.16446818029737265, 0.07448045862050068, -0.1330709242219777}, {-0.1317728068556005, 0.07636948584856929, 0.16396638283438442}}, {{0.16642987740314105, 0.005725681392503014, -0.16401621497119329}, {-0.07739489201929069, 0.13177748674200704, 0.13294572471880872}}, {{0.13977336372696783, -0.0640136471643652, -0.1667583327989264}, {-0.00970864956889244, 0.16452587897177748, 0.07906457525440178}}}, {{{0.34073902436623077, 0.34073902436623077, 0.34073902436623077}, {0.34073902436623077, 0.34073902436623077, 0.34073902436623077}}, {{0.6928296060137858, 0.6928296060137858, 0.6928296060137858}, {0.6928296060137858, 0.6928296060137858, 0.6928296060137858}}, {{0.9257856668034028, 0.9257856668034028, 0.9257856668034028}, {0.9257856668034028, 0.9257856668034028, 0.9257856668034028}}}}
R.align_b = {sum = 4.855948073988632, wsum = -4.171447495924825, first = {0.11374940820716542, 0.4706404589908716, -0.7031926230682899, -0.5634887543561354}}
R.align_c = {sum = 29.297707551102782, wsum = 1.929931373645978, first = {-0.49554467008044173, -0.27301355713887765, 0.11631398546170087, 0.4347028979034227}}
R.align_d = {sum = -0.2716751629547143, wsum = 3.3899282330511844, first = {-0.09787979167709733, 0.08075348462853454, -0.012676430442640675, 0.1533055428003806}}
R.pool_a = {{{{0.9891904763471814, 0.8293611430360361, 0.9881682338770004}, {0.8216694354056685, 0.9901667809515977, 0.9901667809515977}}, {{0.9636278143083621, 0.8887071574625597, 0.9943577238888512}, {0.6729183194431007, 0.9957111137391024, 0.9617842407476243}}, {{0.7723659140347042, 0.9982849204233882, 0.9982849204233882}, {0.9151378701536732, 0.9989900739109129, 0.9178638816390374}}}, {{{0.9998435753406666, 0.9998435753406666, 0.9999408885964244}, {0.7411989943520336, 0.9999962014050929, 0.9999962014050929}}, {{0.9210551245162056, 0.9450102986548485, 0.9993218608644397}, {0.7715382001433396, 0.9987272071504011, 0.9993218608644397}}, {{0.6838879612485218, 0.996429245596242, 0.996429245596242}, {0.9632790164373737, 0.996429245596242, 0.996429245596242}}}, {{{0.9995495815379746, 0.0, 0.0}, {0.0, 0.0, 0.0}}, {{0.9969814821048445, 0.0, 0.0}, {0.0, 0.0, 0.0}}, {{0.9937578479143961, 0.0, 0.0}, {0.0, 0.0, 0.0}}}, {{{0.8293611430360361, 0.8293611430360361, 0.8293611430360361}, {0.8293611430360361, 0.8293611430360361, 0.8293611430360361}}, {{0.5314068205625908, 0.5314068205625908, 0.5314068205625908}, {0.5314068205625908, 0.5314068205625908, 0.5314068205625908}}, {{0.14207520070049756, 0.14207520070049756, 0.14207520070049756}, {0.14207520070049756, 0.14207520070049756, 0.14207520070049756}}}, {{{0.9999962014050929, 0.9999408885964244, 0.9999917647387934}, {0.9998657576419834, 0.9997308832703644, 0.999954198389285}}, {{0.9987272071504011, 0.9993218608644397, 0.9990477318250777}, {0.9979470325895008, 0.9983603017255308, 0.9969814821048445}}, {{0.996429245596242, 0.9614269019809164, 0.9958307350544573}, {0.9685666189028507, 0.9944950051979832, 0.9937578479143961}}}, {{{0.34073902436623077, 0.34073902436623077, 0.0}, {0.0, 0.0, 0.0}}, {{0.6928296060137858, 0.6928296060137858, 0.0}, {0.0, 0.0, 0.0}}, {{0.9257856668034028, 0.9257856668034028, 0.0}, {0.0, 0.0, 0.0}}}}
R.pool_b = {sum = 73.10610941272847, wsum = 21.75961426100909, first = {0.6209859870365596, 0.8624042272433384, 0.9871001010138504, 0.9781966068080447}}
R.pool_c = {sum = 31.61919351140205, wsum = 25.076092652295966, first = {0.9901667809515977, 0.9910971023508014, 0.9919813973407985, 0.9928196248550548}}
R.align_grad_sum = 5.401344820800098 R.align_grad_w = 1.141416443408157
R.pool_grad_sum = 2.6397936953119956 R.pool_grad_w = -2.91654226918575
R.align_list = {{{{-0.014690547138474494, -0.13560558309006107}, {-0.10545249409212183, 0.052047683131300204}}, {{-0.06961019576861484, -0.1363899342612177}, {-0.05948010115391786, 0.09987141580563204}}, {{-0.11256012305928104, -0.11372154997329531}, {-0.003279892761454184, 0.13052190246661005}}}, {{{0.6724802939538113, 0.6159051350129165}, {0.48780073247738587, 0.5762395290307509}}, {{0.5164770851889551, 0.41586186500142874}, {0.6577637145475332, 0.6982102541966535}}, {{0.27166380026104575, 0.14430966465555442}, {0.7146218808156707, 0.7001212368662535}}}, {{{0.3555229641266005, 0.3555229641266005}, {0.34073902436623077, 0.34073902436623077}}, {{0.6870574590167509, 0.6870574590167509}, {0.6928296060137858, 0.6928296060137858}}, {{0.9004499743041923, 0.9004499743041923}, {0.9257856668034028, 0.9257856668034028}}}, {{{0.17172763670991847, 0.20684991426334617}, {-0.016911587243578774, -0.19529339152808178}}, {{0.17761294083373735, 0.08523946653974485}, {-0.05927562167788768, -0.19757419941757187}}, {{0.15295706654841676, -0.05102821135453275}, {-0.09144700163286232, -0.16588141931775266}}}, {{{-0.012080682666505554, 0.0}, {0.0, 0.0}}, {{0.043088019068197675, 0.0}, {0.0, 0.0}}, {{0.09084758230498266, 0.0}, {0.0, 0.0}}}, {{{0.3149516076462612, -0.09121331268267474}, {-0.08743024653047482, 0.3142565664425108}}, {{0.30995830868046975, -0.20763785787033592}, {0.04480017539661599, 0.2635793061847157}}, {{0.25166657346128296, -0.28835833311837683}, {0.16932704744087443, 0.16757864450494958}}}}
R.psalign_a = {sum = -0.3980495467262359, wsum = 4.772892455216931, first = {-0.1464954708774975, -0.10137986398923084, 0.08164153182368822, 0.056037950207991814}}
R.psalign_b = {sum = 4.878511194958556, wsum = 2.7814798720644918, first = {-0.2974171273888124, 0.2562653500122178, -0.16390496468466564, -0.5885626662093635}}
R.pspool_a = {sum = -1.994348415870264, wsum = 0.2710776552821613, first = {-0.06987320056517997, -0.14653560956909337, -0.04777863093212996, 0.1372272375598862}}
R.pspool_b = {sum = 3.0094070013378356, wsum = -0.6377600615271442, first = {0.06312311834705997, 0.10108054696733504, 0.1147529462448051, -0.11136414130331881}}
R.psalign_grad_w = -0.8717790924777401
R.pspool_grad_w = -0.7703684260788815
R.ms = {{{{-0.6497579547781906, -0.6718752217287149}, {0.3986600985269232, 0.25568856173458643}}, {{0.382680874939265, 0.24246818406090498}, {0.395344929246102, 0.5162858798801242}}}, {{{-0.10577953376366613, -0.08096951337879932}, {0.34967179730563946, 0.11818101701114535}}, {{-0.07903010224199118, 0.05517008801216211}, {0.10929306740235853, -0.2763672312077001}}}, {{{-0.2018645886797663, -0.2934701972452457}, {0.014382021767696374, -0.035666770049794}}, {{0.26990382635621796, 0.07023973599352432}, {0.04760529346976049, 0.05470221032106609}}}, {{{-0.09910256859060329, -0.06863235217566736}, {-0.1543744146215069, -0.06287378091756496}}, {{-0.011723795044906043, -0.057795500356146376}, {-0.11435789707017943, -0.1915118668455356}}}, {{{-0.5068885716263447, -0.2595111683320728}, {0.4627952662289956, -0.01199621455283005}}, {{-0.3301715518421713, 0.3760231382917848}, {0.061872621007898365, -0.4526338522781371}}}}
R.ms_scales = {0.25, 0.125, 0.0625}
R.ms1 = {{{{-0.07256644994804048, -0.06837785174895358, -0.06375160736036664}, {-0.4396972339442002, -0.546394041449696, -0.6488058822812321}}, {{0.006117014552319333, 0.015767586086688323, 0.025257567973583472}, {-0.9761051229672221, -0.9492372337313111, -0.9161180307929233}}}, {{{-0.016338463190367854, 0.0034067930375597986, 0.020992944218287537}, {0.0779927370666557, 0.04340722925853089, -0.019165027036692935}}, {{0.013975225542513849, 0.02527070390898607, 0.02032529819979227}, {0.010872724468712328, -0.05009945121762419, -0.07893816951030137}}}, {{{0.04950761318606686, 0.01582621176210547, -0.02122899996909705}, {-0.09912031900498959, -0.12934820276817927, -0.13092081115498225}}, {{-0.04283736496537438, -0.0678760599698849, -0.07784529850918379}, {-0.11643901725188147, -0.07162905771267075, -0.011168472447232528}}}, {{{-0.050194308582167335, -0.004915610307489465, 0.04084105210491354}, {0.06728759520162303, 0.10640381843961969, 0.14093929715299477}}, {{0.16645644691062556, 0.1856432748979615, 0.19656054644733384}, {0.19046358599851138, 0.18231902648581702, 0.16590033189113193}}}, {{{-0.14836699880255771, -0.1852954806257945, -0.07660653049356975}, {0.33178545365093653, 0.21102216715102748, -0.07285106116429176}}, {{-0.16077453207843476, -0.008274530147190822, 0.1481480384118473}, {0.12031760911361779, -0.18145938549400445, -0.33618784551758346}}}}

-- sin(a j + b) over the elements j = 0, 1... of a tensor of the given sizes (the script's seq).
local function close(name, got, want, tol)
  tol = tol or 1e-12
  got = got:double()
  if type(want) == 'table' and want.sum then return C.checksum(name, got, want, tol) end
  want = torch.isTensor(want) and want or D(want)
  tester:assert(got:isSameSizeAs(want), name .. ': size ' .. tostring(got:size()) .. ' vs ' .. tostring(want:size()))
  if got:nElement() > 0 then
    local err = (got - want):abs():max()
    tester:assertle(err, tol, name .. ': max error ' .. err)
  end
end

local X = seq(0.37, 0.3, 2, 3, 10, 12)
local XP = seq(0.37, 0.3, 2, 12, 10, 12)
-- the script's rois with the batch column made 1-based (Note [Batch indices of boxes])
local ROIS = D{{1, 1.2, 0.7, 7.9, 6.3}, {2, -3, -2, 5.5, 4}, {2, 8.5, 6, 20, 14}, {1, 3, 3, 3.2, 3.1},
               {2, 0, 0, 11, 9}, {1, 10.9, 8.8, 11.6, 9.9}}

function tests.roiAlignValues()
  close('roiAlign (2, 3), not aligned', nn.ops.roiAlign(X, ROIS, { 2, 3 }, 1.0, -1, false), R.align_a)
  close('roiAlign aligned, ratio 2, scale 0.5', nn.ops.roiAlign(X, ROIS, { 3, 2 }, 0.5, 2, true), R.align_b)
  close('roiAlign 4, scale 1.3, aligned', nn.ops.roiAlign(X, ROIS, 4, 1.3, -1, true), R.align_c)
  close('roiAlign options table', nn.ops.roiAlign(X, ROIS, { outputSize = { 1, 2 }, spatialScale = 0.7, samplingRatio = 3 }), R.align_d)
  close('roiAlign float32', nn.ops.roiAlign(X:float(), ROIS:float(), { 2, 3 }), R.align_a, 1e-5)
  -- a list of per-image boxes: images in list order
  local bl = { ROIS:index(1, torch.LongTensor{1, 4, 6}):narrow(2, 2, 4), ROIS:index(1, torch.LongTensor{2, 3, 5}):narrow(2, 2, 4) }
  close('roiAlign list of boxes', nn.ops.roiAlign(X, bl, { 2, 2 }, 1.0, 2, false), R.align_list)
  local m = nn.ops.RoIAlign({ 2, 3 }, 1.0, -1)
  close('nn.ops.RoIAlign', m:forward({ X, ROIS }), R.align_a)
  tester:assert(tostring(m):find('RoIAlign', 1, true) ~= nil)
end

-- fn run with roiPool's windows and its tables (Note [RoIPool by range-maximum tables]), and by
-- its own choice
local function bothPoolModes(fn)
  for _, mode in ipairs({ 'windows', 'tables', false }) do
    nn.ops._roiPoolMode = mode or nil
    local ok, err = pcall(fn, mode or 'auto')
    nn.ops._roiPoolMode = nil
    if not ok then error(err, 0) end
  end
end

function tests.roiPoolValues()
  bothPoolModes(function(mode)
    close('roiPool (2, 3) ' .. mode, nn.ops.roiPool(X, ROIS, { 2, 3 }, 1.0), R.pool_a)
    close('roiPool (3, 4), scale 0.5 ' .. mode, nn.ops.roiPool(X, ROIS, { 3, 4 }, 0.5), R.pool_b)
    close('roiPool 2, scale 1.6 ' .. mode, nn.ops.roiPool(X, ROIS, 2, { spatialScale = 1.6 }), R.pool_c)
    close('nn.ops.RoIPool ' .. mode, nn.ops.RoIPool({ 2, 3 }, 1.0):forward({ X, ROIS }), R.pool_a)
  end)
end

-- the tables and the windows agree exactly (values) on random boxes of all sizes, some past the
-- input's edges, and in their gradients
function tests.roiPoolTablesAgreeWithWindows()
  torch.manualSeed(5)
  for trial = 1, 12 do
    local N, C, H, W = 1 + trial % 3, 1 + trial % 4, 3 + 3 * trial, 40 - 2 * trial
    local x = torch.randn(N, C, H, W):double()
    local K = 5 + trial
    local xy = torch.rand(K, 2):double() * 50 - 5
    local rois = torch.cat({ torch.DoubleTensor(K, 1):random(1, N), xy, xy + torch.rand(K, 2):double() * 40 }, 2)
    local size, scale = { 1 + trial % 4, 1 + trial % 7 }, ({ 1, 0.5, 1.6, 0.25 })[trial % 4 + 1]
    local g = torch.randn(K, C, size[1], size[2]):double()
    local out, grad = {}, {}
    for _, mode in ipairs({ 'windows', 'tables' }) do
      nn.ops._roiPoolMode = mode
      local xg = x:clone():requiresGrad()
      local ok, y = pcall(nn.ops.roiPool, xg, rois, size, scale)
      nn.ops._roiPoolMode = nil
      if not ok then error(y, 0) end
      torch.cmul(y, g):sum():backward()
      out[#out + 1], grad[#grad + 1] = y:detach(), xg.grad
    end
    tester:asserteq((out[1] - out[2]):abs():max(), 0, 'roiPool tables values, trial ' .. trial)
    tester:assertlt((grad[1] - grad[2]):abs():max(), 1e-12, 'roiPool tables gradient, trial ' .. trial)
  end
end

function tests.psRoiValues()
  close('psRoiAlign (2, 3)', nn.ops.psRoiAlign(XP, ROIS, { 2, 3 }, 1.0, -1), R.psalign_a)
  close('psRoiAlign (2, 2), ratio 2', nn.ops.psRoiAlign(XP, ROIS, { 2, 2 }, 0.6, 2), R.psalign_b)
  close('psRoiPool (2, 3)', nn.ops.psRoiPool(XP, ROIS, { 2, 3 }, 1.0), R.pspool_a)
  close('psRoiPool (3, 2), scale 1.7', nn.ops.psRoiPool(XP, ROIS, { 3, 2 }, 1.7), R.pspool_b)
  close('nn.ops.PSRoIAlign', nn.ops.PSRoIAlign({ 2, 3 }, 1.0, -1):forward({ XP, ROIS }), R.psalign_a)
  close('nn.ops.PSRoIPool', nn.ops.PSRoIPool({ 2, 3 }, 1.0):forward({ XP, ROIS }), R.pspool_a)
  fails('channels', '[nn.ops.psRoiAlign] input channels (3) must be a multiple of outputSize h * w (6)', nn.ops.psRoiAlign, X, ROIS, { 2, 3 })
end

-- torchvision's input gradients of sum(out * w), checked by their sum and a weighted sum.
function tests.gradientsAgainstTorchvision()
  local sw = seq(0.23, 0.4, 2, 3, 10, 12)
  local w = seq(0.91, 0.1, 6, 3, 2, 3)
  local cases = {
    { 'roiAlign', function(x) return nn.ops.roiAlign(x, ROIS, { 2, 3 }, 0.8, -1, true) end, X, w, R.align_grad_sum, R.align_grad_w },
    { 'roiPool', function(x) return nn.ops.roiPool(x, ROIS, { 2, 3 }, 0.8) end, X, w, R.pool_grad_sum, R.pool_grad_w },
    { 'psRoiAlign', function(x) return nn.ops.psRoiAlign(x, ROIS, { 2, 3 }, 0.8, -1) end, XP, seq(0.91, 0.1, 6, 2, 2, 3), nil, R.psalign_grad_w },
  }
  bothPoolModes(function(mode)
    for _, c in ipairs(cases) do
      local x = c[3]:clone():requiresGrad()
      torch.cmul(c[2](x), c[4]):sum():backward()
      if c[5] then tester:assertlt(math.abs(x.grad:sum() - c[5]), 1e-12, c[1] .. ' gradient sum ' .. mode) end
      local s = torch.cmul(x.grad, seq(0.23, 0.4, unpack(x:size():totable()))):sum()
      tester:assertlt(math.abs(s - c[6]), 1e-12, c[1] .. ' weighted gradient sum ' .. mode)
    end
  end)
end

function tests.gradchecks()
  local x = seq(0.71, 0.2, 2, 2, 5, 6):requiresGrad()
  local rois = D{{1, 0.3, 0.6, 4.2, 3.9}, {2, 1.1, -0.4, 3.7, 2.6}, {1, 2.2, 1.3, 5.4, 4.1}}
  gradcheck('roiAlign', function(z) return nn.ops.roiAlign(z, rois, { 2, 2 }, 1.0, -1, false) end, { x })
  gradcheck('roiAlign aligned, ratio 2', function(z) return nn.ops.roiAlign(z, rois, { 3, 2 }, 0.9, 2, true) end, { x })
  bothPoolModes(function() gradcheck('roiPool', function(z) return nn.ops.roiPool(z, rois, { 2, 2 }, 1.0) end, { x }) end)
  local xp = seq(0.71, 0.2, 2, 4, 5, 6):requiresGrad()
  gradcheck('psRoiAlign', function(z) return nn.ops.psRoiAlign(z, rois, { 2, 2 }, 1.0, 2) end, { xp })
  gradcheck('psRoiPool', function(z) return nn.ops.psRoiPool(z, rois, { 2, 2 }, 1.0) end, { xp })
  -- torchvision 0.14's psRoiPool backward is not the derivative of its forward where bins reach
  -- the last row or column (its own gradcheck fails on the boxes below); ours is.
  gradcheck('psRoiPool, boxes at the edges', function(z) return nn.ops.psRoiPool(z, ROIS, { 2, 3 }, 0.8) end, { XP:clone():requiresGrad() })
end

function tests.multiScaleRoIAlign()
  local feats = { { 'p2', seq(0.21, 0.0, 2, 2, 16, 20) }, { 'p3', seq(0.33, 0.2, 2, 2, 8, 10) }, { 'p4', seq(0.17, 0.4, 2, 2, 4, 5) },
                  { 'pool', seq(0.1, 0.0, 2, 2, 2, 3) } }
  local boxes = { D{{1.0, 2, 10, 9}, {0, 0, 60, 50}, {5, 5, 40, 33}}, D{{3.0, 4, 20, 30}, {10, 12, 79, 63}} }
  local ms = nn.ops.MultiScaleRoIAlign({ 'p2', 'p3', 'p4' }, 2, 2, { canonicalScale = 32, canonicalLevel = 3 })
  close('MultiScaleRoIAlign', ms:forward({ feats, boxes, { { 64, 80 }, { 60, 70 } } }), R.ms)
  tester:assertTableEq(ms.scales, R.ms_scales)
  -- features as a table name -> map
  local byName = {}
  for _, p in ipairs(feats) do byName[p[1]] = p[2] end
  local ms1 = nn.ops.MultiScaleRoIAlign({ 'p3' }, { 2, 3 }, -1)
  close('MultiScaleRoIAlign, one level', ms1:forward({ byName, boxes, { { 64, 80 } } }), R.ms1)
  -- differentiable in the features
  local f = {}
  for i, p in ipairs(feats) do f[i] = { p[1], p[2]:clone():requiresGrad() } end
  ms:forward({ f, boxes, { { 64, 80 } } }):sum():backward()
  tester:assert(f[1][2].grad ~= nil and f[2][2].grad ~= nil, 'gradients reach the levels used (p2, p3)')
  tester:assert(f[3][2].grad == nil, 'no box maps to p4')
  fails('missing level', '[nn.ops.MultiScaleRoIAlign] features hold 2 of the 3 maps named in featmapNames',
    function() return nn.ops.MultiScaleRoIAlign({ 'p2', 'p3', 'x' }, 2, 2):forward({ feats, boxes, { { 64, 80 } } }) end)
end

function tests.emptyAndErrors()
  local e = D(0, 5)
  tester:assertTableEq(nn.ops.roiAlign(X, e, { 2, 3 }):size():totable(), { 0, 3, 2, 3 })
  tester:assertTableEq(nn.ops.roiPool(X, e, 2):size():totable(), { 0, 3, 2, 2 })
  tester:assertTableEq(nn.ops.psRoiAlign(XP, e, { 2, 3 }):size():totable(), { 0, 2, 2, 3 })
  tester:assertTableEq(nn.ops.psRoiPool(XP, e, { 2, 3 }):size():totable(), { 0, 2, 2, 3 })
  tester:assertTableEq(nn.ops.roiAlign(X, { D(0, 4), D(0, 4) }, 2):size():totable(), { 0, 3, 2, 2 })
  -- boxes of one image only
  tester:assertTableEq(nn.ops.roiAlign(X, { D(0, 4), D{{0, 0, 3, 3}} }, 2):size():totable(), { 1, 3, 2, 2 })
  fails('boxes K x 4 tensor', '[nn.ops.roiAlign] boxes (a tensor) must be a K x 5 tensor, got size 6x4', nn.ops.roiAlign, X, ROIS:narrow(2, 2, 4), 2)
  fails('list of K x 5', '[nn.ops.roiPool] boxes[1] must be a K x 4 tensor, got size 6x5', nn.ops.roiPool, X, { ROIS }, 2)
  fails('0-based batch column', '[nn.ops.roiAlign] the batch indices of boxes (first column) must be integers in 1..2 (1-based',
    nn.ops.roiAlign, X, D{{0, 1, 1, 3, 3}}, 2)
  fails('batch index too large', 'must be integers in 1..2', nn.ops.roiPool, X, D{{3, 1, 1, 3, 3}}, 2)
  fails('fractional batch index', 'must be integers in 1..2', nn.ops.roiAlign, X, D{{1.5, 1, 1, 3, 3}}, 2)
  fails('negative size', '[nn.ops.roiAlign] outputSize must be positive integers, got -2', nn.ops.roiAlign, X, ROIS, { -2, 2 })
  fails('zero size', '[nn.ops.roiPool] outputSize must be positive integers, got 0', nn.ops.roiPool, X, ROIS, 0)
  fails('no size', '[nn.ops.roiAlign] expected outputSize', nn.ops.roiAlign, X, ROIS)
  fails('3-D input', '[nn.ops.roiAlign] input must be N x C x H x W, got size 3x10x12', nn.ops.roiAlign, X[1], ROIS, 2)
  fails('types', '[nn.ops.roiAlign] input (torch.DoubleTensor on device -1) and boxes (torch.FloatTensor on device -1) must have the same type and device',
    nn.ops.roiAlign, X, ROIS:float(), 2)
  fails('integer input', '[nn.ops.roiPool] input must be floating point', nn.ops.roiPool, X:long(), ROIS:long(), 2)
  fails('aligned', '[nn.ops.roiAlign] expected aligned (a boolean), got', nn.ops.roiAlign, X, ROIS, 2, 1, -1, 1)
  fails('module input', '[nn.ops.RoIAlign] expected {input, boxes}', function() return nn.ops.RoIAlign(2, 1, -1):forward(X) end)
  fails('unknown option', '[nn.ops.roiAlign] unknown option scale', nn.ops.roiAlign, X, ROIS, { outputSize = 2, scale = 1 })
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
    return
  end
  local xc, rc = X:float():cuda(), ROIS:float():cuda()
  close('roiAlign on CUDA', nn.ops.roiAlign(xc, rc, { 2, 3 }):to('cpu'), R.align_a, 1e-5)
  close('roiPool on CUDA', nn.ops.roiPool(xc, rc, { 2, 3 }):to('cpu'), R.pool_a, 1e-5)
  close('psRoiPool on CUDA', nn.ops.psRoiPool(XP:float():cuda(), rc, { 2, 3 }):to('cpu'), R.pspool_a, 1e-5)
  local x = xc:clone():requiresGrad()
  nn.ops.roiAlign(x, rc, { 2, 3 }, 0.8, -1, true):sum():backward()
  local xd = X:clone():requiresGrad()
  nn.ops.roiAlign(xd, ROIS, { 2, 3 }, 0.8, -1, true):sum():backward()
  close('roiAlign gradient on CUDA', x.grad:to('cpu'), xd.grad, 1e-5)
  fails('devices', 'must have the same type and device', nn.ops.roiAlign, xc, ROIS:float(), 2)
end

tester:add(tests)
tester:run()
