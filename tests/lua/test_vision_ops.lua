-- nn.ops (lua/nn/ops/): torchvision.ops' box utilities, IoUs, box and focal losses and NMS,
-- checked against torchvision 0.14 (PyTorch 1.13) in float64: the values below come from the
-- script at the end of this header. Also gradchecks of the differentiable ones (CIoU, whose alpha
-- autograd holds constant, against torchvision's gradient), 1-based indices (removeSmallBoxes,
-- nms, batchedNms: torchvision's + 1), empty inputs, errors naming the function, and CUDA
-- against the CPU when a device is present. RoI pooling: test_vision_ops_roi.lua; layers:
-- test_vision_ops_layers.lua.
--
-- # Reference values for tests/lua/test_vision_ops.lua (PyTorch 1.13, torchvision 0.14, float64).
-- import math, torch, torchvision.ops as O
-- torch.set_printoptions(precision=17)
-- D = torch.float64
-- def L(t):  # a Lua table literal
--     if t.dim() == 0: return repr(t.item())
--     return '{' + ', '.join(L(x) for x in t) + '}'
-- b1 = torch.tensor([[0, 0, 2, 2], [1, 1, 4, 3], [0.5, -1, 2.5, 6], [3, 3, 3.5, 5]], dtype=D)
-- b2 = torch.tensor([[1, 1, 3, 3], [0, 0, 1, 1], [5, 5, 6, 7]], dtype=D)
-- print('iou =', L(O.box_iou(b1, b2)))
-- print('giou =', L(O.generalized_box_iou(b1, b2)))
-- print('diou =', L(O.distance_box_iou(b1, b2)))
-- print('ciou =', L(O.complete_box_iou(b1, b2)))
-- print('diou_eps =', L(O.distance_box_iou(b1, b2, eps=0.5)))
-- print('area =', L(O.box_area(b1)))
-- for a in ['xyxy', 'xywh', 'cxcywh']:
--     for b in ['xyxy', 'xywh', 'cxcywh']:
--         print('conv_%s_%s =' % (a, b), L(O.box_convert(b1, a, b)))
-- print('clip =', L(O.clip_boxes_to_image(b1, (4, 3))))
-- print('small =', L(O.remove_small_boxes(b1, 1.5)))
-- m = torch.zeros(3, 4, 5); m[0, 1:3, 2:4] = 1; m[1, 0, 4] = 2; m[2, 3, 0] = 1; m[2, 0, 3] = -1
-- print('masks =', L(O.masks_to_boxes(m)))
-- # losses on matched pairs
-- p = torch.tensor([[0, 0, 2, 2], [1, 1, 4, 3], [0.5, -1, 2.5, 6]], dtype=D)
-- g = torch.tensor([[1, 1, 3, 3], [0, 0, 1, 1], [0.5, 0, 3, 6]], dtype=D)
-- for r in ['none', 'mean', 'sum']:
--     print('gl_%s =' % r, L(O.generalized_box_iou_loss(p, g, r)))
--     print('dl_%s =' % r, L(O.distance_box_iou_loss(p, g, r)))
--     print('cl_%s =' % r, L(O.complete_box_iou_loss(p, g, r)))
-- print('cl_eps =', L(O.complete_box_iou_loss(p, g, 'none', eps=0.1)))
-- print('gl_eps =', L(O.generalized_box_iou_loss(p, g, 'none', eps=0.1)))
-- x = torch.tensor([[2.0, -1.0, 0.5], [-3.0, 0.0, 1.5]], dtype=D)
-- t = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 0.3]], dtype=D)
-- print('focal =', L(O.sigmoid_focal_loss(x, t)))
-- print('focal_a =', L(O.sigmoid_focal_loss(x, t, alpha=-1, gamma=1.5, reduction='sum')))
-- print('focal_m =', L(O.sigmoid_focal_loss(x, t, alpha=0.6, gamma=0, reduction='mean')))
-- # gradients of the losses
-- pp = p.clone().requires_grad_()
-- (O.complete_box_iou_loss(pp, g, 'sum')).backward()
-- print('cl_grad =', L(pp.grad))
-- pp = p.clone().requires_grad_()
-- (O.complete_box_iou(pp, g).sum()).backward()
-- print('ciou_grad =', L(pp.grad))
-- # nms: a deterministic set with tied scores
-- n = 300
-- j = torch.arange(n, dtype=D)
-- bx = torch.stack([(j * 37) % 101, (j * 53) % 97, (j * 37) % 101 + 5 + (j * 13) % 29, (j * 53) % 97 + 5 + (j * 7) % 31], 1)
-- sc = ((j * 17) % 23) / 23
-- print('nms5 =', L(O.nms(bx, sc, 0.5)))
-- print('nms2 =', L(O.nms(bx, sc, 0.2)))
-- sd = torch.sin(j * 1.3)
-- cat = (j % 4).long()
-- from torchvision.ops.boxes import _batched_nms_vanilla, _batched_nms_coordinate_trick
-- a1 = _batched_nms_vanilla(bx, sd, cat, 0.3); a2 = _batched_nms_coordinate_trick(bx, sd, cat, 0.3)
-- assert a1.tolist() == a2.tolist()
-- print('bnms3 =', L(a1))
-- print('nms_f32 =', L(O.nms(bx.float(), sc.float(), 0.4)))
require 'nn.ops'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
-- Shared checks (helpers/vision_ops_checks.lua).
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_ops_checks.lua')(tester)
local fails, gradcheck = C.fails, C.gradcheck

-- Reference values (PyTorch 1.13 / torchvision 0.14, from the script above).
local R = {}
R.iou = {{0.14285714285714285, 0.25, 0.0}, {0.6666666666666666, 0.0, 0.0}, {0.2, 0.034482758620689655, 0.0}, {0.0, 0.0, 0.0}}
R.giou = {{-0.07936507936507936, 0.25, -0.8571428571428571}, {0.6666666666666666, -0.4166666666666667, -0.7333333333333333}, {0.05714285714285716, -0.13694581280788176, -0.6363636363636364}, {-0.5, -0.8857142857142857, -0.75}}
R.diou = {{0.03174603236331569, 0.18750000078124998, -0.532352940550173}, {0.6474358975838264, -0.249999999, -0.4098360649019081}, {0.19095022626072358, -0.05601497877207462, -0.2997347476925891}, {-0.24999999887640448, -0.5318791932030089, -0.36249999855}}
R.ciou = {{0.03174603236331569, 0.18750000078124998, -0.5340424012495685}, {0.6467215844774109, -0.25024550675350477, -0.420592231497856}, {0.17893819747798564, -0.06616841990006511, -0.2999259383123374}, {-0.2625274016689514, -0.5444065959955559, -0.3628684100287059}}
R.diou_eps = {{0.034749034749034735, 0.19117647058823528, -0.5292397660818714}, {0.6481481481481481, -0.24509803921568626, -0.4065040650406504}, {0.19103139013452916, -0.05520334003401886, -0.29815303430079154}, {-0.2445054945054945, -0.5248344370860927, -0.3553921568627451}}
R.area = {4.0, 6.0, 14.0, 1.0}
R.conv_xyxy_xyxy = {{0.0, 0.0, 2.0, 2.0}, {1.0, 1.0, 4.0, 3.0}, {0.5, -1.0, 2.5, 6.0}, {3.0, 3.0, 3.5, 5.0}}
R.conv_xyxy_xywh = {{0.0, 0.0, 2.0, 2.0}, {1.0, 1.0, 3.0, 2.0}, {0.5, -1.0, 2.0, 7.0}, {3.0, 3.0, 0.5, 2.0}}
R.conv_xyxy_cxcywh = {{1.0, 1.0, 2.0, 2.0}, {2.5, 2.0, 3.0, 2.0}, {1.5, 2.5, 2.0, 7.0}, {3.25, 4.0, 0.5, 2.0}}
R.conv_xywh_xyxy = {{0.0, 0.0, 2.0, 2.0}, {1.0, 1.0, 5.0, 4.0}, {0.5, -1.0, 3.0, 5.0}, {3.0, 3.0, 6.5, 8.0}}
R.conv_xywh_xywh = {{0.0, 0.0, 2.0, 2.0}, {1.0, 1.0, 4.0, 3.0}, {0.5, -1.0, 2.5, 6.0}, {3.0, 3.0, 3.5, 5.0}}
R.conv_xywh_cxcywh = {{1.0, 1.0, 2.0, 2.0}, {3.0, 2.5, 4.0, 3.0}, {1.75, 2.0, 2.5, 6.0}, {4.75, 5.5, 3.5, 5.0}}
R.conv_cxcywh_xyxy = {{-1.0, -1.0, 1.0, 1.0}, {-1.0, -0.5, 3.0, 2.5}, {-0.75, -4.0, 1.75, 2.0}, {1.25, 0.5, 4.75, 5.5}}
R.conv_cxcywh_xywh = {{-1.0, -1.0, 2.0, 2.0}, {-1.0, -0.5, 4.0, 3.0}, {-0.75, -4.0, 2.5, 6.0}, {1.25, 0.5, 3.5, 5.0}}
R.conv_cxcywh_cxcywh = {{0.0, 0.0, 2.0, 2.0}, {1.0, 1.0, 4.0, 3.0}, {0.5, -1.0, 2.5, 6.0}, {3.0, 3.0, 3.5, 5.0}}
R.clip = {{0.0, 0.0, 2.0, 2.0}, {1.0, 1.0, 3.0, 3.0}, {0.5, 0.0, 2.5, 4.0}, {3.0, 3.0, 3.0, 4.0}}
R.small = {0, 1, 2}
R.masks = {{2.0, 1.0, 3.0, 2.0}, {4.0, 0.0, 4.0, 0.0}, {0.0, 0.0, 3.0, 3.0}}
R.gl_none = {1.07936507893676, 1.4166666631944445, 0.322689079619236}
R.dl_none = {0.9682539696775005, 1.249999999, 0.2997737597981205}
R.cl_none = {0.9682539696775005, 1.2502455067535048, 0.299874715203588}
R.gl_mean = 0.9395736072501468
R.dl_mean = 0.8393425761585404
R.cl_mean = 0.8394580638781978
R.gl_sum = 2.8187208217504405
R.dl_sum = 2.518027728475621
R.cl_sum = 2.518374191634593
R.cl_eps = {0.9682539696775005, 1.2502235037704181, 0.2998494522178731}
R.gl_eps = {1.0789351493576846, 1.4132231404958677, 0.3266547049441787}
R.focal = {{0.0004508907088100952, 0.016993543131350496, 0.28305870064455735}, {0.6915701102563155, 0.04332169878499658, 0.2952081606241693}}
R.focal_a = 4.227996752977248
R.focal_m = 0.5686305170762322
R.cl_grad = {{-0.059334843985830686, -0.059334843985830686, -0.1780045333810244, -0.1780045333810244}, {0.0796173120081512, 0.060574031267773214, 0.0003826879918488024, -0.0005740312677731996}, {0.00634059146223911, -0.09072693968236455, -0.3161724924669028, -0.027002016681507472}}
R.ciou_grad = {{-0.017856512280217063, -0.056938783513573926, 0.1578232082436768, 0.1596875974091324}, {-0.2987944154761868, -0.10976133573823083, -0.3031872587575102, 0.09121211285439501}, {0.010881056521469645, 0.05497516938130484, 0.37687851740852724, -0.027743949575676427}}
R.nms5 = {4, 27, 50, 73, 96, 119, 142, 165, 188, 211, 257, 280, 8, 31, 54, 77, 100, 123, 146, 169, 192, 215, 238, 261, 284, 12, 35, 58, 81, 104, 127, 150, 173, 196, 219, 242, 288, 16, 62, 85, 108, 131, 154, 177, 200, 223, 246, 269, 20, 89, 112, 135, 181, 204, 227, 250, 273, 1, 24, 47, 93, 116, 139, 162, 208, 231, 254, 277, 5, 74, 120, 143, 212, 235, 281, 9, 32, 124, 170, 239, 262, 285, 36, 105, 151, 174, 197, 243, 266, 289, 17, 40, 63, 86, 132, 155, 201, 270, 293, 21, 67, 90, 136, 159, 182, 228, 251, 274, 297, 25, 48, 71, 94, 163, 186, 232, 255, 278, 6, 29, 52, 75, 121, 144, 190, 213, 236, 259, 282, 33, 56, 102, 125, 148, 171, 217, 286, 14, 37, 60, 83, 152, 221, 244, 290, 18, 41, 87, 133, 156, 179, 202, 248, 271, 294, 22, 45, 114, 183, 206, 275, 298, 3, 49, 72, 118, 141, 164, 210, 279, 7, 76, 145, 237, 80, 103, 172, 195, 241, 287, 38, 61, 84, 107, 130, 153, 199, 268, 19, 65, 134, 203, 226, 0, 23, 69, 92, 138, 161, 230, 253, 299}
R.nms2 = {4, 27, 50, 73, 96, 142, 257, 280, 8, 31, 54, 77, 100, 123, 146, 169, 192, 261, 284, 12, 35, 58, 81, 104, 127, 150, 173, 288, 62, 108, 131, 204, 47, 93, 116, 143, 212, 9, 124, 262, 174, 63, 155, 178, 67, 159, 297, 186, 209, 232, 255, 29, 259, 217, 60, 290, 18, 248, 114, 183, 3, 241, 0, 299}
R.bnms3 = {296, 267, 238, 209, 180, 151, 122, 93, 64, 35, 6, 11, 40, 69, 98, 127, 156, 185, 214, 243, 272, 291, 262, 233, 204, 175, 117, 88, 59, 30, 1, 16, 45, 74, 103, 132, 161, 190, 219, 248, 277, 286, 257, 228, 199, 170, 141, 112, 83, 54, 25, 21, 108, 137, 195, 224, 253, 281, 49, 26, 84, 142, 276, 247, 218, 160, 131, 102, 31, 60, 89, 118, 147, 176, 205, 234, 263, 292, 271, 242, 213, 184, 155, 126, 97, 68, 39, 10, 7, 36, 65, 94, 123, 152, 181, 210, 239, 268, 297, 266, 208, 150, 121, 92, 63, 34, 5, 157, 186, 215, 244, 273, 290, 261, 232, 203, 174, 145, 116, 87, 58, 29, 0, 17, 133, 169, 111, 53, 80, 138, 196, 254, 283, 280, 222, 164, 77, 19, 27, 85, 143, 172, 230, 288, 275, 217, 159, 130, 14, 32, 148, 177, 235, 299, 270, 241, 212, 183, 154, 125, 67, 9, 124, 120, 62, 71, 129, 187, 274, 86, 28, 18, 76, 134, 163, 192, 221, 250, 279, 226, 139, 23}
R.nms_f32 = {4, 27, 50, 73, 96, 119, 142, 165, 188, 257, 280, 8, 31, 54, 77, 100, 123, 146, 169, 192, 215, 261, 284, 12, 35, 58, 81, 104, 127, 150, 173, 196, 219, 288, 39, 62, 85, 131, 154, 200, 246, 269, 20, 89, 112, 181, 204, 227, 250, 1, 47, 70, 93, 116, 139, 231, 277, 5, 120, 143, 212, 235, 9, 124, 170, 239, 262, 285, 36, 174, 266, 289, 63, 132, 155, 201, 270, 293, 21, 44, 67, 90, 228, 297, 25, 94, 140, 163, 186, 232, 278, 6, 29, 52, 121, 190, 236, 259, 10, 79, 125, 217, 286, 14, 37, 60, 83, 129, 152, 221, 244, 290, 18, 87, 156, 179, 248, 45, 137, 160, 183, 252, 275, 49, 279, 53, 76, 145, 11, 80, 172, 241, 38, 153, 19, 65, 134, 203, 0, 230, 299}

local function close(name, got, want, tol)
  want = torch.isTensor(want) and want or D(want)
  tester:assert(got:isSameSizeAs(want), name .. ': size ' .. tostring(got:size()) .. ' vs ' .. tostring(want:size()))
  if got:nElement() == 0 then return end
  local err = (got:double() - want):abs():max()
  tester:assertle(err, tol or 1e-12, name .. ': max error ' .. err)
end
local B1 = D{{0, 0, 2, 2}, {1, 1, 4, 3}, {0.5, -1, 2.5, 6}, {3, 3, 3.5, 5}}
local B2 = D{{1, 1, 3, 3}, {0, 0, 1, 1}, {5, 5, 6, 7}}
local PB = D{{0, 0, 2, 2}, {1, 1, 4, 3}, {0.5, -1, 2.5, 6}}
local GB = D{{1, 1, 3, 3}, {0, 0, 1, 1}, {0.5, 0, 3, 6}}
-- Boxes in general position (no ties between coordinates, so no kinks of min/max/clamp).
local function randomBoxes(n, seed)
  torch.manualSeed(seed)
  local xy = torch.rand(n, 2):double() * 4
  return torch.cat({ xy, xy + torch.rand(n, 2):double() * 3 + 0.5 }, 2)
end

-- ---- IoUs -------------------------------------------------------------------------------------

function tests.iouFamilyValues()
  close('boxArea', nn.ops.boxArea(B1), R.area)
  close('boxIou', nn.ops.boxIou(B1, B2), R.iou)
  close('generalizedBoxIou', nn.ops.generalizedBoxIou(B1, B2), R.giou)
  close('distanceBoxIou', nn.ops.distanceBoxIou(B1, B2), R.diou)
  close('distanceBoxIou eps', nn.ops.distanceBoxIou(B1, B2, 0.5), R.diou_eps)
  close('completeBoxIou', nn.ops.completeBoxIou(B1, B2), R.ciou)
  -- float32 and integer boxes (torchvision divides integer boxes in float too)
  close('boxIou float', nn.ops.boxIou(B1:float(), B2:float()), R.iou, 1e-6)
  local ib = nn.ops.boxIou(torch.LongTensor{{0, 0, 2, 2}}, torch.LongTensor{{1, 1, 3, 3}})
  tester:assert(nn.utils.isFloating(ib), 'integer boxes give floating IoUs')
  close('boxIou ints', ib, { { 1 / 7 } }, 1e-7)
  tester:asserteq(nn.ops.boxArea(torch.LongTensor{{0, 0, 2, 3}})[1], 6)
end

function tests.iouFamilyGradients()
  local a, b = randomBoxes(3, 1), randomBoxes(2, 2)
  for _, name in ipairs({ 'boxIou', 'generalizedBoxIou', 'distanceBoxIou' }) do
    gradcheck(name, function(x, y) return nn.ops[name](x, y) end, { a:clone():requiresGrad(), b:clone():requiresGrad() })
  end
  gradcheck('boxArea', nn.ops.boxArea, { a:clone():requiresGrad() })
  -- CIoU: alpha is a constant for autograd (torchvision's no_grad), so no finite differences
  local p = PB:clone():requiresGrad()
  nn.ops.completeBoxIou(p, GB):sum():backward()
  close('completeBoxIou gradient', p.grad, R.ciou_grad, 1e-12)
end

-- ---- formats and helpers ------------------------------------------------------------------------

function tests.boxConvert()
  for _, a in ipairs({ 'xyxy', 'xywh', 'cxcywh' }) do
    for _, b in ipairs({ 'xyxy', 'xywh', 'cxcywh' }) do
      close('boxConvert ' .. a .. ' -> ' .. b, nn.ops.boxConvert(B1, a, b), R['conv_' .. a .. '_' .. b])
      close('roundtrip ' .. a .. ' -> ' .. b, nn.ops.boxConvert(nn.ops.boxConvert(B1, a, b), b, a), B1, 1e-14)
    end
  end
  local same = nn.ops.boxConvert(B1, 'xywh', 'xywh')
  tester:assert(same:data() ~= B1:data(), 'equal formats give a copy')
  -- any leading shape
  close('boxConvert 3-D', nn.ops.boxConvert(B1:view(2, 2, 4), 'xyxy', 'cxcywh'), D(R.conv_xyxy_cxcywh):view(2, 2, 4))
  gradcheck('boxConvert', function(x) return nn.ops.boxConvert(x, 'cxcywh', 'xywh') end, { randomBoxes(3, 3):requiresGrad() })
  fails('bad format', "[nn.ops.boxConvert] unsupported format xxyy", nn.ops.boxConvert, B1, 'xxyy', 'xyxy')
  fails('bad shape', '[nn.ops.boxConvert] boxes must have 4 numbers in the last dim, got size 2x3', nn.ops.boxConvert, D(2, 3), 'xyxy', 'xywh')
end

function tests.clipRemoveMasks()
  close('clipBoxesToImage', nn.ops.clipBoxesToImage(B1, { 4, 3 }), R.clip)
  gradcheck('clipBoxesToImage', function(x) return nn.ops.clipBoxesToImage(x, { 3, 3 }) end, { randomBoxes(4, 4):requiresGrad() })
  local keep = nn.ops.removeSmallBoxes(B1, 1.5)
  tester:asserteq(keep:type(), 'torch.LongTensor')
  close('removeSmallBoxes (1-based)', keep, D(R.small) + 1, 0)
  tester:asserteq(nn.ops.removeSmallBoxes(B1, 100):nElement(), 0)
  local m = torch.zeros(3, 4, 5)
  m[{ 1, { 2, 3 }, { 3, 4 } }] = 1
  m[1][1][5] = 2
  m[2][1][5] = 2
  m[3][4][1] = 1
  m[3][1][4] = -1
  m[1][1][5] = 0
  local boxes = nn.ops.masksToBoxes(m)
  tester:asserteq(boxes:type(), 'torch.FloatTensor')
  close('masksToBoxes (0-based positions, Note [Box coordinates])', boxes, R.masks, 0)
  close('masksToBoxes of a ByteTensor', nn.ops.masksToBoxes(m:ne(0)), R.masks, 0)
  m[2]:zero()
  fails('empty mask', '[nn.ops.masksToBoxes] mask 2 has no nonzero pixel', nn.ops.masksToBoxes, m)
  fails('masks 2-D', '[nn.ops.masksToBoxes] masks must be N x H x W, got size 4x5', nn.ops.masksToBoxes, torch.zeros(4, 5))
end

function tests.emptyInputs()
  local e = D(0, 4)
  tester:assertTableEq(nn.ops.boxIou(e, B2):size():totable(), { 0, 3 })
  tester:assertTableEq(nn.ops.generalizedBoxIou(B1, e):size():totable(), { 4, 0 })
  tester:assertTableEq(nn.ops.completeBoxIou(e, e):size():totable(), { 0, 0 })
  tester:asserteq(nn.ops.boxArea(e):nElement(), 0)
  tester:asserteq(nn.ops.boxConvert(e, 'xyxy', 'cxcywh'):size(1), 0)
  tester:asserteq(nn.ops.clipBoxesToImage(e, { 2, 2 }):size(1), 0)
  tester:asserteq(nn.ops.removeSmallBoxes(e, 1):nElement(), 0)
  tester:assertTableEq(nn.ops.masksToBoxes(torch.zeros(0, 3, 3)):size():totable(), { 0, 4 })
  tester:asserteq(nn.ops.nms(e, D(0), 0.5):nElement(), 0)
  tester:asserteq(nn.ops.nms(e, D(0), 0.5):type(), 'torch.LongTensor')
  tester:asserteq(nn.ops.batchedNms(e, D(0), torch.LongTensor(0), 0.5):nElement(), 0)
  -- torchvision's box losses give 0 for the mean of no boxes
  for _, f in ipairs({ 'generalizedBoxIouLoss', 'distanceBoxIouLoss', 'completeBoxIouLoss' }) do
    local l = nn.ops[f](e, e, 'mean')
    tester:asserteq(torch.isTensor(l) and l:item() or l, 0, f .. ' mean of nothing')
    tester:asserteq(nn.ops[f](e, e):nElement(), 0)
  end
end

function tests.boxErrors()
  fails('shape', '[nn.ops.boxIou] boxes1 must be a K x 4 tensor, got size 3x5', nn.ops.boxIou, D(3, 5), B2)
  fails('1-D', '[nn.ops.boxArea] boxes must be a K x 4 tensor, got size 4', nn.ops.boxArea, D(4))
  fails('not a tensor', '[nn.ops.generalizedBoxIou] expected boxes2 (a tensor), got', nn.ops.generalizedBoxIou, B1, { 1, 2, 3, 4 })
  fails('types', '[nn.ops.distanceBoxIou] boxes1 (torch.DoubleTensor on device -1) and boxes2 (torch.FloatTensor on device -1) must have the same type and device',
    nn.ops.distanceBoxIou, B1, B2:float())
  fails('eps', '[nn.ops.completeBoxIou] expected eps (a number)', nn.ops.completeBoxIou, B1, B2, 'x')
  fails('clip size', '[nn.ops.clipBoxesToImage] expected size as {height, width}', nn.ops.clipBoxesToImage, B1, 3)
  fails('minSize', '[nn.ops.removeSmallBoxes] expected minSize (a number)', nn.ops.removeSmallBoxes, B1)
end

-- Note: torchvision 0.14 asserts nothing about x2 < x1 in these functions (later versions assert
-- in the box losses); such boxes get its formulas' values, negative areas included.
function tests.degenerateBoxesAsTorchvision()
  local bad = D{{2, 2, 0, 0}}
  tester:asserteq(nn.ops.boxArea(bad)[1], 4)
  close('boxIou of a reversed box', nn.ops.boxIou(bad, D{{0, 0, 2, 2}}), { { 0 } })
end

-- ---- losses -----------------------------------------------------------------------------------

function tests.boxLosses()
  local names = { gl = 'generalizedBoxIouLoss', dl = 'distanceBoxIouLoss', cl = 'completeBoxIouLoss' }
  for short, f in pairs(names) do
    close(f .. ' none', nn.ops[f](PB, GB), R[short .. '_none'])
    close(f .. ' default is none', nn.ops[f](PB, GB, { reduction = 'none' }), R[short .. '_none'])
    tester:assertlt(math.abs(nn.ops[f](PB, GB, 'mean') - R[short .. '_mean']), 1e-12, f .. ' mean')
    tester:assertlt(math.abs(nn.ops[f](PB, GB, { reduction = 'sum' }) - R[short .. '_sum']), 1e-12, f .. ' sum')
    fails(f .. ' reduction', "[nn.ops." .. f .. "] reduction must be 'none', 'mean' or 'sum', got avg", nn.ops[f], PB, GB, 'avg')
    fails(f .. ' sizes', '[nn.ops.' .. f .. '] boxes1 (3x4) and boxes2 (2x4) must have the same size', nn.ops[f], PB, GB:narrow(1, 1, 2))
    fails(f .. ' option', '[nn.ops.' .. f .. '] unknown option epsilon', nn.ops[f], PB, GB, { epsilon = 1 })
  end
  close('completeBoxIouLoss eps', nn.ops.completeBoxIouLoss(PB, GB, 'none', 0.1), R.cl_eps)
  close('generalizedBoxIouLoss eps', nn.ops.generalizedBoxIouLoss(PB, GB, { eps = 0.1 }), R.gl_eps)
  local p = PB:clone():requiresGrad()
  nn.ops.completeBoxIouLoss(p, GB, 'sum'):backward()
  close('completeBoxIouLoss gradient', p.grad, R.cl_grad)
  local a, b = randomBoxes(3, 5), randomBoxes(3, 6)
  gradcheck('generalizedBoxIouLoss', function(x, y) return nn.ops.generalizedBoxIouLoss(x, y) end, { a:clone():requiresGrad(), b:clone():requiresGrad() })
  gradcheck('distanceBoxIouLoss', function(x, y) return nn.ops.distanceBoxIouLoss(x, y, 'sum') end, { a:clone():requiresGrad(), b:clone():requiresGrad() })
  -- float32 boxes stay float32; half boxes compute in float32 (torchvision's _upcast_non_float)
  tester:asserteq(nn.ops.generalizedBoxIouLoss(PB:float(), GB:float()):type(), 'torch.FloatTensor')
end

function tests.sigmoidFocalLoss()
  local x = D{{2.0, -1.0, 0.5}, {-3.0, 0.0, 1.5}}
  local t = D{{1.0, 0.0, 0.0}, {1.0, 1.0, 0.3}}
  close('focal', nn.ops.sigmoidFocalLoss(x, t), R.focal)
  tester:assertlt(math.abs(nn.ops.sigmoidFocalLoss(x, t, -1, 1.5, 'sum') - R.focal_a), 1e-12, 'alpha < 0, sum')
  tester:assertlt(math.abs(nn.ops.sigmoidFocalLoss(x, t, { alpha = 0.6, gamma = 0, reduction = 'mean' }) - R.focal_m), 1e-12, 'mean')
  gradcheck('sigmoidFocalLoss', function(z) return nn.ops.sigmoidFocalLoss(z, t, 0.3, 2.5) end, { x:clone():requiresGrad() })
  -- large logits stay finite (log-space cross-entropy)
  local big = nn.ops.sigmoidFocalLoss(D{80, -80}, D{0, 1})
  tester:assertlt(math.abs(big[1] - 0.75 * 80), 1e-9, 'stable for large logits (negative)')
  tester:assertlt(math.abs(big[2] - 0.25 * 80), 1e-9, 'stable for large logits (positive)')
  fails('sizes', '[nn.ops.sigmoidFocalLoss] inputs (2x3) and targets (3) must have the same size', nn.ops.sigmoidFocalLoss, x, D(3))
  fails('ints', '[nn.ops.sigmoidFocalLoss] inputs must be floating point', nn.ops.sigmoidFocalLoss, torch.LongTensor{1}, torch.LongTensor{1})
end

-- ---- nms --------------------------------------------------------------------------------------

-- The deterministic set of the script: 300 boxes, scores with many ties.
local function nmsSet(float)
  local n = 300
  local j = torch.range(0, n - 1):double()
  local x, y = torch.fmod(j * 37, 101), torch.fmod(j * 53, 97)
  local bx = torch.cat({ x:view(n, 1), y:view(n, 1), (x + 5 + torch.fmod(j * 13, 29)):view(n, 1), (y + 5 + torch.fmod(j * 7, 31)):view(n, 1) }, 2)
  local sc = torch.fmod(j * 17, 23) / 23
  return bx, sc, torch.sin(j * 1.3), torch.fmod(j, 4):long()
end

function tests.nmsValues()
  local bx, sc, sd, cat = nmsSet()
  close('nms 0.5 (ties in input order)', nn.ops.nms(bx, sc, 0.5), D(R.nms5) + 1, 0)
  close('nms 0.2', nn.ops.nms(bx, sc, 0.2), D(R.nms2) + 1, 0)
  close('nms float32', nn.ops.nms(bx:float(), sc:float(), 0.4), D(R.nms_f32) + 1, 0)
  close('batchedNms', nn.ops.batchedNms(bx, sd, cat, 0.3), D(R.bnms3) + 1, 0)
  tester:asserteq(nn.ops.nms(bx, sc, 0.5):type(), 'torch.LongTensor')
  -- the CUDA path's walk over the whole IoU matrix, run on the CPU
  close('nms by matrix', nn.ops._nmsByMatrix(bx, sc, 0.5), D(R.nms5) + 1, 0)
  close('nms by matrix, float32', nn.ops._nmsByMatrix(bx:float(), sc:float(), 0.4), D(R.nms_f32) + 1, 0)
  close('batchedNms by matrix', nn.ops._nmsByMatrix(bx, sd, 0.3, cat), D(R.bnms3) + 1, 0)
  -- hand case: the second box overlaps the first (IoU 0.8), the third is apart
  local b = D{{0, 0, 10, 10}, {0, 0, 10, 8}, {20, 20, 30, 30}}
  close('nms hand', nn.ops.nms(b, D{0.9, 0.95, 0.1}, 0.5), { 2, 3 }, 0)
  close('nms hand, high threshold', nn.ops.nms(b, D{0.9, 0.95, 0.1}, 0.85), { 2, 1, 3 }, 0)
  close('nms negative threshold keeps the best', nn.ops.nms(b, D{0.9, 0.95, 0.1}, -1), { 2 }, 0)
  close('batchedNms separates categories', nn.ops.batchedNms(b, D{0.9, 0.95, 0.1}, torch.LongTensor{1, 2, 1}, 0.5), { 2, 1, 3 }, 0)
  -- boxes under autograd: indices only, no graph
  close('nms of boxes requiring grad', nn.ops.nms(b:clone():requiresGrad(), D{0.9, 0.95, 0.1}, 0.5), { 2, 3 }, 0)
end

-- The CPU walk over the boxes' data (Note [NMS walk through data pointers]) keeps the boxes the
-- matrix walk keeps, on random boxes with tied scores, empty boxes and many overlaps, in float32
-- and float64; batchedNms keeps what one nms per category keeps, by decreasing score.
function tests.nmsWalkAgreesWithMatrix()
  torch.manualSeed(7)
  for trial = 1, 24 do
    local n = 20 * trial
    local xy = torch.rand(n, 2):double() * 100
    local wh = torch.rand(n, 2):double() * 40
    if trial % 4 == 0 then wh:narrow(1, 1, n / 4):zero() end
    local b = torch.cat({ xy, xy + wh }, 2)
    local s = torch.rand(n):double()
    if trial % 3 == 0 then s = torch.floor(s * 5) end
    if trial % 2 == 0 then b, s = b:float(), s:float() end
    local c = torch.LongTensor(n):random(-2, 5)
    local thr = ({ 0.3, 0.5, 0.7, 0.4, 0, 1 })[trial % 6 + 1]
    local what = string.format('trial %d (%s, threshold %g)', trial, b:type(), thr)
    local k = nn.ops.nms(b, s, thr)
    tester:assertTableEq(k:totable(), nn.ops._nmsByMatrix(b, s, thr):totable(), 'nms ' .. what)
    local kb = nn.ops.batchedNms(b, s, c, thr)
    tester:assertTableEq(kb:totable(), nn.ops._nmsByMatrix(b, s, thr, c):totable(), 'batchedNms ' .. what)
    local mask = torch.ByteTensor(n):zero()
    for cat = -2, 5 do
      local members = nn.ops._where1(c:eq(cat))
      if members:nElement() > 0 then
        mask:indexFill(1, members:index(1, nn.ops.nms(b:index(1, members), s:index(1, members), thr)), 1)
      end
    end
    local kept = nn.ops._where1(mask)
    local _, order = torch.sort(s:index(1, kept), 1, true)
    tester:assertTableEq(kb:totable(), kept:index(1, order):totable(), 'batchedNms per category ' .. what)
  end
end

function tests.nmsErrors()
  local b = D{{0, 0, 1, 1}, {0, 0, 2, 2}}
  fails('scores size', '[nn.ops.nms] scores must be a 1-D tensor of one score per box (2), got size 3', nn.ops.nms, b, D(3), 0.5)
  fails('boxes shape', '[nn.ops.nms] boxes must be a K x 4 tensor, got size 2x3', nn.ops.nms, D(2, 3), D(2), 0.5)
  fails('types', '[nn.ops.nms] boxes (torch.DoubleTensor on device -1) and scores (torch.FloatTensor on device -1) must have the same type and device', nn.ops.nms, b, torch.FloatTensor(2), 0.5)
  fails('threshold', '[nn.ops.nms] expected iouThreshold (a number), got nil', nn.ops.nms, b, D(2))
  fails('integer boxes', '[nn.ops.nms] boxes must be floating point', nn.ops.nms, b:long(), D(2):long(), 0.5)
  fails('idxs size', '[nn.ops.batchedNms] idxs must be a 1-D tensor of one category per box (2), got size 1', nn.ops.batchedNms, b, D(2), torch.LongTensor(1), 0.5)
  fails('huge categories', '[nn.ops.batchedNms] category indices (idxs) must be below 2^52 / 3 in size, got 1e+16', nn.ops.batchedNms, b, D(2), torch.LongTensor{0, 1e16}, 0.5)
end

-- Every public function and class of nn.ops has a `---` doc with an example, and the examples run.
function tests.docsAndExamples()
  local doc = require 'torch.doc'
  local names = {}
  for name in pairs(nn.ops) do
    if type(name) == 'string' and not name:match('^_') then names[#names + 1] = name end
  end
  table.sort(names)
  tester:assertge(#names, 36, 'nn.ops lists its functions and classes')
  local quiet = function() end
  for _, name in ipairs(names) do
    local v = nn.ops[name]
    local f = type(v) == 'function' and v or torch.getmetatable('nn.ops.' .. name).__init
    local entry = doc.get(f, 'nn.ops.' .. name)
    tester:assert(entry and entry.text and entry.text ~= '' and entry.example, 'nn.ops.' .. name .. ' lacks a doc with an example')
    if entry and entry.example then
      local chunk, err = loadstring(entry.example, '=' .. name)
      tester:assert(chunk, name .. ': ' .. tostring(err))
      if chunk then
        setfenv(chunk, setmetatable({ print = quiet }, { __index = _G }))
        local ok, res = pcall(chunk)
        tester:assert(ok, 'nn.ops.' .. name .. ' example: ' .. tostring(res))
      end
    end
  end
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
    return
  end
  local a, b = randomBoxes(5, 7), randomBoxes(4, 8)
  for _, f in ipairs({ 'boxIou', 'generalizedBoxIou', 'distanceBoxIou', 'completeBoxIou' }) do
    close(f .. ' on CUDA', nn.ops[f](a:cuda(), b:cuda()):double(), nn.ops[f](a, b), 1e-6)
  end
  close('completeBoxIouLoss on CUDA', nn.ops.completeBoxIouLoss(a:narrow(1, 1, 4):cuda(), b:cuda()):double(), nn.ops.completeBoxIouLoss(a:narrow(1, 1, 4), b), 1e-6)
  local bx, sc, sd, cat = nmsSet()
  local k = nn.ops.nms(bx:cuda(), sc:cuda(), 0.5)
  tester:assert(k:getDevice() >= 0, 'nms indices on the device')
  close('nms on CUDA', k:to('cpu'):double(), D(R.nms5) + 1, 0)
  close('batchedNms on CUDA', nn.ops.batchedNms(bx:cuda(), sd:cuda(), cat:cuda(), 0.3):to('cpu'):double(), D(R.bnms3) + 1, 0)
  close('masksToBoxes on CUDA', nn.ops.masksToBoxes(torch.ones(1, 3, 4):cuda()):to('cpu'):double(), { { 0, 0, 3, 2 } }, 0)
  fails('devices', 'must have the same type and device', nn.ops.boxIou, a:cuda(), b)
end

tester:add(tests)
tester:run()
