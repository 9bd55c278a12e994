-- Regression tests from the review of nn.ops (lua/nn/ops/) against torchvision 0.14 (PyTorch
-- 1.13): RoI pooling of edge boxes (partly and wholly outside the image, zero-size, inverted,
-- half-pixel corners) for aligned and not, adaptive and fixed sampling, several spatial scales,
-- values and input gradients; non-finite boxes; MultiScaleRoIAlign with a negative-area box; nms
-- ties, threshold edges in float32 and float64, NaN and inf scores, batchedNms with 50 categories
-- (and double categories); IoUs, conversions and losses of degenerate, touching and integer boxes;
-- the focal loss at saturated logits; inputs of no pixels; layers given classes positionally.
-- Values come from the script below (float64 unless said); checksums as in
-- helpers/vision_ops_checks.lua (the sum, the sum weighted by seq(0.13, 0.7), the first elements).
--
-- # PyTorch 1.13, torchvision 0.14 (L prints a Lua literal, NaN as 0/0, inf as math.huge)
-- def seq(shape, a, b): return torch.sin(torch.arange(math.prod(shape), dtype=D) * a + b).view(shape)
-- def ck(t): t = t.double(); return (t.sum(), (t * seq(t.shape, 0.13, 0.7)).sum(), t.reshape(-1)[:4])
-- X = seq((2, 12, 7, 9), 0.37, 0.1)
-- B = torch.tensor([[0, 0.5, 0.5, 2.5, 2.5], [1, 1.5, 0.5, 6.5, 4.5], [0, -3, -2, 4, 3], [1, 5, 4, 12, 10], [0, 10, 8, 14, 12],
--                   [1, 3, 3, 3, 3], [0, 6, 5, 2, 1], [1, 0.25, 1.75, 8.75, 6.25], [0, 2.5, 3.5, 3.5, 4.5], [1, -1.5, -0.5, 0.5, 1.5]], dtype=D)
-- def run(f, x, nan0=False):  # the output and the gradient of sum(output * seq(.., 0.71, 0.3))
--     xx = x.clone().requires_grad_(); y = f(xx)
--     if nan0: y = torch.nan_to_num(y, nan=0.0)
--     (y * seq(y.shape, 0.71, 0.3)).sum().backward(); return y.detach(), xx.grad
-- for al in [False, True]: for sr in [0, -1, 2]: for sc in [1.0, 0.5]:
--     ck(*run(lambda x: O.roi_align(x, B, (2, 3), sc, sr, al), X))                       -> R.align
-- for sc in [1.0, 0.5, 0.25, 1.7]: ck(*run(lambda x: O.roi_pool(x, B, (2, 3), sc), X))     -> R.pool
-- for sr in [-1, 2]: for sc in [1.0, 0.5]:
--     ck(*run(lambda x: O.ps_roi_align(x, B, (2, 3), sc, sr), X, True))                   -> R.psalign
-- for sc in [1.0, 0.5, 0.25]: ck(O.ps_roi_pool(X, B, (2, 3), sc))                          -> R.pspool
-- ck(O.roi_align(X.float(), B.float(), (2, 3), 1.0, -1, True))                            -> R.align_f32
-- f1 = seq((2, 2, 16, 16), 1.0, 1.0); f2 = seq((2, 2, 8, 8), 0.5, 0.2); f3 = seq((2, 2, 4, 4), 0.3, 0.3)
-- bl = [torch.tensor([[0, 0, 10, 10], [5, 5, 4, 6], [1, 1, 30, 30]], dtype=D), torch.tensor([[0, 0, 60, 60], [2, 2, 2, 2], [0, 0, 120, 120]], dtype=D)]
-- O.MultiScaleRoIAlign(['a', 'b', 'c'], 2, 2)(OrderedDict(a=f1, b=f2, c=f3), bl, [(64, 64), (60, 50)]).view(6, -1) -> R.ms
-- bb = torch.tensor([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30], [0, 0, 10, 10], [10, 10, 4, 4], [10, 10, 4, 4]], dtype=D)
-- ss = torch.tensor([0.5, 0.9, 0.5, 0.9, 0.1, 0.9, 0.95, 0.2], dtype=D)
-- for t in [0.0, 1/3, 0.5, 1.0, -0.1]: O.nms(bb, ss, t) + 1, O.nms(bb.float(), ss.float(), t) + 1  -> R.nms
-- b3 = torch.tensor([[0, 0, 2, 1], [1, 0, 3, 1]], dtype=D)  # IoU 1/3
-- for t in [1/3, 0.3333333, 0.33333334]: the same with scores [0.9, 0.8]                  -> R.third
-- bn = torch.tensor([[0, 0, 1, 1], [0, 0, 1, 1], [nan, 0, 1, 1], [0, 0, 1, 1]], dtype=D)
-- O.nms(bn[[0, 1, 3]], [0.5, nan, 0.7], 0.5), O.nms(bn, [0.5, 0.6, 0.9, 0.7], 0.5), O.nms(bn[[0, 1, 3]], [-inf, inf, 0.7], 0.5)
-- j = torch.arange(200, dtype=D)
-- bx = torch.stack([(j * 37) % 41, (j * 53) % 43, (j * 37) % 41 + 5 + (j * 13) % 29, (j * 53) % 43 + 5 + (j * 7) % 31], 1)
-- sc = ((j * 17) % 23) / 23 + j * 1e-4; cat = ((j * 7) % 50).long()
-- O.batched_nms(bx, sc, cat, 0.3) + 1, O.batched_nms(bx, sc, cat * 1000 - 3000, 0.3) + 1  -> R.bnms, R.bnms_neg
-- b1 = torch.tensor([[0, 0, 2, 2], [3, 3, 3, 3], [4, 4, 2, 1], [0, 0, 0, 5], [-1, -1, 1, 1]], dtype=D)
-- b2 = torch.tensor([[3, 3, 3, 3], [0, 0, 2, 2], [1, 1, 0, 0], [0, 0, 1e-9, 1]], dtype=D)
-- bi = torch.tensor([[0, 0, 2, 2], [1, 1, 4, 3]]); bj = torch.tensor([[1, 1, 3, 3], [0, 0, 1, 1], [2, 2, 5, 7]])
-- each IoU of (b1, b2) and of (bi, bj) (float32)                                          -> R.iou
-- O.box_convert(torch.tensor([[1, 2, 4, 7], [0, 0, 3, 3]]), a, b) for all formats a, b   -> R.conv (and is_floating_point)
-- p = torch.tensor([[0, 0, 2, 2], [3, 3, 3, 3], [4, 4, 2, 1], [0, 0, 1, 1], [1, 1, 2, 3]], dtype=D)
-- g = torch.tensor([[0, 0, 2, 2], [3, 3, 3, 3], [0, 0, 1, 1], [2, 2, 3, 3], [1, 1, 2, 3]], dtype=D)
-- each loss(p, g) ('none') and the gradient of its sum in p                               -> R.loss
-- x = [50.0, -50.0, 1.0, -2.0, 0.0, 30.0]; t = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
-- for (a, gm) in [(0.25, 0.0), (-1, 1.0), (0.5, 0.5)]: O.sigmoid_focal_loss(x, t, a, gm), its sum's gradient -> R.focal
-- p = torch.tensor([[0, 0, 1, 1], [0, 0, 2, 1], [0, 0, 1, 1], [0, 0, 1, 1]], dtype=D)  # boxes that touch g's
-- g = torch.tensor([[1, 0, 2, 1], [1, 1, 3, 2], [1, 1, 2, 2], [0.5, 0, 1.5, 1]], dtype=D)
-- each loss(p, g) and the gradients of its sum in p and in g                             -> R.touch
require 'nn.ops'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_ops_checks.lua')(tester)
local seq, fails, gradcheck = C.seq, C.fails, C.gradcheck

local R = { align = {}, pool = {}, psalign = {}, pspool = {}, nms = {}, third = {}, iou = {}, conv = {}, loss = {}, focal = {}, touch = {} }
R.align[#R.align + 1] = {aligned = false, ratio = 0, scale = 1.0, out = {sum = 3.949670516039501, wsum = 0.10516747488512318, first = {-0.5572858612083431, -0.7341679325538601, -0.8779279420548108, 0.7008038713393562}}, grad = {sum = 2.3480280639612916, wsum = 3.9095056879890544, first = {0.11724295641224944, 0.09553129781738841, -0.05218763219054054, -0.0849841844032119}}}
R.align[#R.align + 1] = {aligned = false, ratio = 0, scale = 0.5, out = {sum = -3.637128032142594, wsum = 0.10460205332084666, first = {-0.08695850412690398, -0.08268838907257342, -0.07752177147476261, -0.4208557868724028}}, grad = {sum = 2.0588059683867326, wsum = -0.925015915458125, first = {0.6939219470241518, 0.6348315373764503, -0.1373055123339241, 0.0}}}
R.align[#R.align + 1] = {aligned = false, ratio = -1, scale = 1.0, out = {sum = 3.949670516039501, wsum = 0.10516747488512318, first = {-0.5572858612083431, -0.7341679325538601, -0.8779279420548108, 0.7008038713393562}}, grad = {sum = 2.3480280639612916, wsum = 3.9095056879890544, first = {0.11724295641224944, 0.09553129781738841, -0.05218763219054054, -0.0849841844032119}}}
R.align[#R.align + 1] = {aligned = false, ratio = -1, scale = 0.5, out = {sum = -3.637128032142594, wsum = 0.10460205332084666, first = {-0.08695850412690398, -0.08268838907257342, -0.07752177147476261, -0.4208557868724028}}, grad = {sum = 2.0588059683867326, wsum = -0.925015915458125, first = {0.6939219470241518, 0.6348315373764503, -0.1373055123339241, 0.0}}}
R.align[#R.align + 1] = {aligned = false, ratio = 2, scale = 1.0, out = {sum = 3.539543325197973, wsum = 0.12832479977883582, first = {-0.28110839441504265, -0.3703319662618728, -0.44284797333278486, 0.3535023311822417}}, grad = {sum = 2.328168171986878, wsum = 1.3168126879894726, first = {0.10868027206705082, 0.17769031281954342, 0.11132362717019567, -0.038460737839900255}}}
R.align[#R.align + 1] = {aligned = false, ratio = 2, scale = 0.5, out = {sum = -4.253267137285777, wsum = 0.05020068593872823, first = {-0.08695850412690398, -0.08268838907257342, -0.07752177147476261, -0.3165727849210326}}, grad = {sum = 2.058805968386739, wsum = -1.0734172062746516, first = {0.7177556096270441, 0.6146370640764133, -0.14069418492280517, 0.0}}}
R.align[#R.align + 1] = {aligned = true, ratio = 0, scale = 1.0, out = {sum = 1.0460303316142163, wsum = -0.014882468455420933, first = {-0.08802603289048662, -0.07948580278182549, -0.06377355232532245, 0.08106133417857093}}, grad = {sum = 3.6242364493556734, wsum = -19.843426701881217, first = {0.05707430302681952, 0.5898985366001028, 0.23864792347067576, -0.09098199853089137}}}
R.align[#R.align + 1] = {aligned = true, ratio = 0, scale = 0.5, out = {sum = -1.0028925488772062, wsum = -0.23234007891309583, first = {0.09983341664682815, 0.18809663382988817, 0.3057809234073015, -0.09229614794481719}}, grad = {sum = 2.9930018202822537, wsum = 9.944614972023562, first = {1.0245382374734495, 0.1966657733044013, -0.05789710674419497, 0.0}}}
R.align[#R.align + 1] = {aligned = true, ratio = -1, scale = 1.0, out = {sum = 1.0460303316142163, wsum = -0.014882468455420933, first = {-0.08802603289048662, -0.07948580278182549, -0.06377355232532245, 0.08106133417857093}}, grad = {sum = 3.6242364493556734, wsum = -19.843426701881217, first = {0.05707430302681952, 0.5898985366001028, 0.23864792347067576, -0.09098199853089137}}}
R.align[#R.align + 1] = {aligned = true, ratio = -1, scale = 0.5, out = {sum = -1.0028925488772062, wsum = -0.23234007891309583, first = {0.09983341664682815, 0.18809663382988817, 0.3057809234073015, -0.09229614794481719}}, grad = {sum = 2.9930018202822537, wsum = 9.944614972023562, first = {1.0245382374734495, 0.1966657733044013, -0.05789710674419497, 0.0}}}
R.align[#R.align + 1] = {aligned = true, ratio = 2, scale = 1.0, out = {sum = 1.8463390226951786, wsum = -0.05051071247195854, first = {-0.0880260328904866, -0.07858930023834526, -0.06377355232532247, 0.08106133417857095}}, grad = {sum = 2.1222468138756883, wsum = -13.927758664754414, first = {0.1474586837773705, 0.5392965314376523, 0.2540942285254517, -0.12190238903538594}}}
R.align[#R.align + 1] = {aligned = true, ratio = 2, scale = 0.5, out = {sum = 0.5609022228347755, wsum = -0.09048498811160466, first = {0.07581722107287248, 0.15344785939439348, 0.2569553771564215, -0.09229614794481719}}, grad = {sum = 1.1696636997857865, wsum = 14.955169322848336, first = {0.9766930402145433, 0.5567105446738905, 0.5695102548722607, 0.07968791002144707}}}
R.pool[#R.pool + 1] = {scale = 1.0, out = {sum = 239.2061449047673, wsum = -16.021023860766626, first = {0.7491743483316894, 0.9379999767747389, 0.999871708718139, 0.7491743483316894}}, grad = {sum = 2.8032066258062107, wsum = 4.408811748343143, first = {0.0, 0.0, 0.4100944043797583, 0.0}}}
R.pool[#R.pool + 1] = {scale = 0.5, out = {sum = 216.2223751272005, wsum = -18.10054846291944, first = {0.09983341664682815, 0.4528862853790683, 0.4528862853790683, -0.28442571253646254}}, grad = {sum = 1.411200618405542, wsum = -15.190094615007828, first = {0.29552020666133955, 2.2458160150024753, -0.28350051823199124, 0.0}}}
R.pool[#R.pool + 1] = {scale = 0.25, out = {sum = 110.96399173494984, wsum = -17.353076032716977, first = {0.09983341664682815, 0.4528862853790683, 0.4528862853790683, -0.28442571253646254}}, grad = {sum = 1.8266593963016264, wsum = 3.8312084519542604, first = {-0.28506382801138386, 0.8897219473854844, 0.0, 0.0}}}
R.pool[#R.pool + 1] = {scale = 1.7, out = {sum = 204.464994556512, wsum = -0.33736619827237746, first = {0.9379999767747389, 0.999871708718139, 0.999871708718139, 0.9997393370368531}}, grad = {sum = 0.1850313470479108, wsum = 31.022390752983945, first = {0.0, 0.0, 0.0, 0.4100944043797583}}}
R.psalign[#R.psalign + 1] = {ratio = -1, scale = 1.0, out = {sum = 1.2239219414838922, wsum = 0.6673169577188658, first = {-0.08802603289048662, -0.028897427297982725, 0.08829045969375085, 0.022966195054438338}}, grad = {sum = 1.285031255269793, wsum = 2.4211134287849103, first = {0.09850673555377985, 0.04925336777688992, 0.0, 0.0}}}
R.psalign[#R.psalign + 1] = {ratio = -1, scale = 0.5, out = {sum = 1.289611610787843, wsum = 2.7136711314072257, first = {0.09983341664682815, -0.9854389337785593, 0.1835144906956685, -0.05009563350386842}}, grad = {sum = 2.162579384729624, wsum = -6.806589767141634, first = {0.29552020666133955, 0.0, 0.0, 0.0}}}
R.psalign[#R.psalign + 1] = {ratio = 2, scale = 1.0, out = {sum = 0.8100807985008978, wsum = 1.3974150581743185, first = {-0.0880260328904866, -0.028571499696247546, 0.08829045969375082, 0.022966195054438365}}, grad = {sum = 2.40907885301165, wsum = 4.348304654904232, first = {0.09850673555377984, 0.04925336777688993, 0.0, 0.0}}}
R.psalign[#R.psalign + 1] = {ratio = 2, scale = 0.5, out = {sum = -0.19045245526588683, wsum = 2.0808550971369106, first = {0.07581722107287248, -0.8626532013533668, 0.17208770007888888, -0.05009563350386842}}, grad = {sum = 4.297562652023718, wsum = -6.856344524810771, first = {0.27705019374500583, 0.0, 0.0, 0.0}}}
R.pspool[#R.pspool + 1] = {scale = 1.0, out = {sum = 1.0354990210842647, wsum = 3.664241884862838, first = {-0.6118578909427193, 0.8159610792337963, 0.5007954643867435, 0.9958641749679762}}}
R.pspool[#R.pspool + 1] = {scale = 0.5, out = {sum = -3.6615199228336555, wsum = 2.998278358325969, first = {0.09983341664682815, -0.9884785655243385, 0.392998133813722, 0.7925391831536265}}}
R.pspool[#R.pspool + 1] = {scale = 0.25, out = {sum = -0.34868466482310523, wsum = 2.315915802212619, first = {0.09983341664682815, -0.9884785655243385, 0.392998133813722, 0.7925391831536265}}}
R.align_f32 = {sum = 1.6308433492667973, wsum = -0.01180131375233684, first = {-0.0880260318517685, -0.07948580384254456, -0.06377355754375458, 0.08106132596731186}}
R.ms = {{-0.18723348877857746, 0.09958618056386606, 0.25468742419300283, -0.13492149925106617, -0.16430410960881753, -0.23045669666999302, 0.22290966887388491, 0.31327610042160575}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, {0.23925183650991685, -0.36355634384658986, 0.20891452297084617, -0.16067782102585468, -0.3945630402323422, 0.24823062461601325, 0.03859065369925032, -0.11934498077991314}, {-0.055004651649897936, 0.05127068698686936, -0.10732264741953523, -0.029635255091152696, -0.09706006838504794, -0.10326516318007709, -0.03275820037863825, -0.10833872083382426}, {0.4003185035768716, 0.24748612505648543, 0.4523132747230102, 0.34800097840845556, 0.228395325673862, 0.38832708886624734, 0.10622836677315145, 0.3004497726410337}, {-0.163505983228496, 0.0, 0.0, 0.0, -0.16161820069051575, 0.0, 0.0, 0.0}}
R.nms[#R.nms + 1] = {thr = 0.0, d = {7, 2, 8, 5}, f = {7, 2, 8, 5}}
R.nms[#R.nms + 1] = {thr = 0.3333333333333333, d = {7, 2, 4, 8, 5}, f = {7, 2, 8, 5}}
R.nms[#R.nms + 1] = {thr = 0.5, d = {7, 2, 4, 8, 5}, f = {7, 2, 4, 8, 5}}
R.nms[#R.nms + 1] = {thr = 1.0, d = {7, 2, 4, 6, 1, 3, 8, 5}, f = {7, 2, 4, 6, 1, 3, 8, 5}}
R.nms[#R.nms + 1] = {thr = -0.1, d = {7}, f = {7}}
R.third[#R.third + 1] = {thr = 0.3333333333333333, d = {1, 2}, f = {1}}
R.third[#R.third + 1] = {thr = 0.3333333, d = {1}, f = {1}}
R.third[#R.third + 1] = {thr = 0.33333334, d = {1, 2}, f = {1}}
R.nms_nan_scores = {2}
R.nms_nan_box = {3, 4}
R.nms_inf_scores = {2}
R.bnms = {189, 166, 143, 120, 97, 74, 51, 28, 5, 193, 170, 147, 124, 101, 78, 55, 32, 9, 197, 174, 151, 128, 105, 82, 59, 36, 13, 178, 155, 132, 109, 86, 63, 40, 17, 182, 159, 113, 90, 67, 44, 21, 186, 163, 140, 117, 94, 71, 48, 25, 2, 190, 167, 144, 121, 98, 75, 52, 29, 6, 194, 171, 148, 125, 102, 79, 56, 33, 10, 198, 175, 152, 129, 106, 83, 60, 37, 14, 179, 156, 133, 110, 87, 64, 41, 18, 183, 160, 137, 91, 68, 45, 22, 187, 164, 141, 118, 95, 72, 49, 26, 3, 191, 168, 122, 99, 76, 53, 30, 7, 195, 172, 149, 126, 103, 80, 57, 34, 11, 199, 153, 130, 107, 84, 61, 38, 15, 180, 157, 134, 111, 88, 65, 42, 19, 184, 161, 138, 115, 92, 69, 46, 23, 188, 165, 142, 119, 96, 73, 50, 27, 4, 192, 169, 146, 123, 100, 77, 54, 31, 8, 196, 173, 150, 104, 81, 58, 35, 12, 200, 177, 154, 131, 108, 85, 62, 39, 16, 181, 158, 135, 112, 89, 66, 43, 20, 185, 162, 139, 116, 93, 70, 47, 24, 1}
R.bnms_neg = {189, 166, 143, 120, 97, 74, 51, 28, 5, 193, 170, 147, 124, 101, 78, 55, 32, 9, 197, 174, 151, 128, 105, 82, 59, 36, 13, 178, 155, 132, 109, 86, 63, 40, 17, 182, 159, 113, 90, 67, 44, 21, 186, 163, 140, 117, 94, 71, 48, 25, 2, 190, 167, 144, 121, 98, 75, 52, 29, 6, 194, 171, 148, 125, 102, 79, 56, 33, 10, 198, 175, 152, 129, 106, 83, 60, 37, 14, 179, 156, 133, 110, 87, 64, 41, 18, 183, 160, 137, 91, 68, 45, 22, 187, 164, 141, 118, 95, 72, 49, 26, 3, 191, 168, 122, 99, 76, 53, 30, 7, 195, 172, 149, 126, 103, 80, 57, 34, 11, 199, 153, 130, 107, 84, 61, 38, 15, 180, 157, 134, 111, 88, 65, 42, 19, 184, 161, 138, 115, 92, 69, 46, 23, 188, 165, 142, 119, 96, 73, 50, 27, 4, 192, 169, 146, 123, 100, 77, 54, 31, 8, 196, 173, 150, 104, 81, 58, 35, 12, 200, 177, 154, 131, 108, 85, 62, 39, 16, 181, 158, 135, 112, 89, 66, 43, 20, 185, 162, 139, 116, 93, 70, 47, 24, 1}
R.iou.boxIou = {degenerate = {{0.0, 1.0, 0.0, 2.5e-10}, {0/0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}, {0/0, 0.0, 0.0, 0.0}, {0.0, 0.14285714285714285, 0.0, 2.5e-10}}, int = {{0.1428571492433548, 0.25, 0.0}, {0.6666666865348816, 0.0, 0.10526315867900848}}}
R.iou.generalizedBoxIou = {degenerate = {{-0.5555555555555556, 1.0, 0.25, 2.5e-10}, {0/0, -0.5555555555555556, -0.75, -0.9999999998888889}, {math.huge, 1.5, math.huge, 2.0000000005}, {0/0, -0.6, math.huge, -0.8}, {-0.75, -0.07936507936507936, 0.25, 2.5e-10}}, int = {{-0.079365074634552, 0.25, -0.4571428596973419}, {0.6666666865348816, -0.4166666567325592, -0.10307016968727112}}}
R.iou.distanceBoxIou = {degenerate = {{-0.44444444197530864, 1.0, -0.06249999921875001, -0.15624999767187503}, {0/0, -0.44444444197530864, -1.5624999804687503, -0.8472222173487653}, {-2500000.0, -0.7812499902343751, -10.249998975000102, -2.599999947400001}, {0/0, -0.11206896513079667, -0.16999999931999998, -0.15999999936}, {-0.5624999982421874, 0.03174603236331569, -0.06249999921875001, -0.031249999359375006}}, int = {{0.0317460373044014, 0.1875, -0.25}, {0.6474359035491943, -0.25, -0.034159913659095764}}}
R.iou.completeBoxIou = {degenerate = {{0/0, 1.0, -0.06249999921875001, -0.20624999345269224}, {0/0, 0/0, 0/0, 0/0}, {0/0, -0.7814954979878799, -10.250244482753606, -2.617221987463109}, {0/0, -0.162068961130797, -0.2199999953200003, -0.15999999936}, {0/0, 0.03174603236331569, -0.06249999921875001, -0.08124999514019222}}, int = {{0.0317460373044014, 0.1875, -0.25057756900787354}, {0.646721601486206, -0.25024551153182983, -0.0406179279088974}}}
R.conv[#R.conv + 1] = {'xyxy', 'xyxy', {{1, 2, 4, 7}, {0, 0, 3, 3}}, false}
R.conv[#R.conv + 1] = {'xyxy', 'xywh', {{1, 2, 3, 5}, {0, 0, 3, 3}}, false}
R.conv[#R.conv + 1] = {'xyxy', 'cxcywh', {{2.5, 4.5, 3.0, 5.0}, {1.5, 1.5, 3.0, 3.0}}, true}
R.conv[#R.conv + 1] = {'xywh', 'xyxy', {{1, 2, 5, 9}, {0, 0, 3, 3}}, false}
R.conv[#R.conv + 1] = {'xywh', 'xywh', {{1, 2, 4, 7}, {0, 0, 3, 3}}, false}
R.conv[#R.conv + 1] = {'xywh', 'cxcywh', {{3.0, 5.5, 4.0, 7.0}, {1.5, 1.5, 3.0, 3.0}}, true}
R.conv[#R.conv + 1] = {'cxcywh', 'xyxy', {{-1.0, -1.5, 3.0, 5.5}, {-1.5, -1.5, 1.5, 1.5}}, true}
R.conv[#R.conv + 1] = {'cxcywh', 'xywh', {{-1.0, -1.5, 4.0, 7.0}, {-1.5, -1.5, 3.0, 3.0}}, true}
R.conv[#R.conv + 1] = {'cxcywh', 'cxcywh', {{1, 2, 4, 7}, {0, 0, 3, 3}}, false}
R.loss.generalizedBoxIouLoss = {out = {2.4999999403974016e-08, 1.0, -1.4999998750000065, 1.7777777691358025, 4.99999973646581e-08}, grad = {{6.249999712215626e-09, 6.249999712215626e-09, -6.249999712215626e-09, -6.249999712215626e-09}, {0.0, 0.0, 0.0, 0.0}, {-1.499999925000004, -0.9999999500000026, 3.249999775000015, 2.7499998000000136}, {0.03703703374485608, 0.03703703374485608, -0.11111110987654323, -0.11111110987654323}, {2.4999997461083723e-08, 1.2499998730541861e-08, -2.4999997461083723e-08, -1.2499998730541861e-08}}}
R.loss.distanceBoxIouLoss = {out = {2.4999999403974016e-08, 1.0, 3.049999959000001, 1.4444444419753086, 4.99999973646581e-08}, grad = {{6.24999968446005e-09, 6.24999968446005e-09, -6.24999968446005e-09, -6.24999968446005e-09}, {0.0, 0.0, 0.0, 0.0}, {0.49999999000000017, 0.39999999200000014, -1.1399999444000017, -0.009999991600000369}, {0.03703703600823044, 0.03703703600823044, -0.11111111049382716, -0.11111111049382716}, {2.499999740557257e-08, 1.2499998702786286e-08, -2.499999740557257e-08, -1.2499998702786286e-08}}}
R.loss.completeBoxIouLoss = {out = {2.4999999403974016e-08, 0/0, 3.0502454667535055, 1.4444444419753086, 4.99999973646581e-08}, grad = {{6.24999968446005e-09, 6.24999968446005e-09, -6.24999968446005e-09, -6.24999968446005e-09}, {0/0, 0/0, 0/0, 0/0}, {0.499425958492227, 0.40038267967184893, -1.1394259128922286, -0.010382679271849172}, {0.03703703600823044, 0.03703703600823044, -0.11111111049382716, -0.11111111049382716}, {2.499999740557257e-08, 1.2499998702786286e-08, -2.499999740557257e-08, -1.2499998702786286e-08}}}
R.focal[#R.focal + 1] = {alpha = 0.25, gamma = 0.0, out = {0.0, 0.0, 0.07831542187955572, 0.09519600828222946, 0.17328679513998632, 22.50000000000007}, grad = {0.0, 1.4465623859729385e-22, -0.06723535534249878, 0.08940219151658815, -0.125, 0.7499999999999298}}
R.focal[#R.focal + 1] = {alpha = -1, gamma = 1.0, out = {0.0, 0.0, 0.08424904350191412, 0.015130189802777942, 0.34657359027997264, 29.99999999999729}, grad = {0.0, 0.0, -0.13392047412196004, 0.027535963586148602, -0.42328679513998635, 1.0000000000026175}}
R.focal[#R.focal + 1] = {alpha = 0.5, gamma = 0.5, out = {0.0, 0.0, 0.08122807017774979, 0.021911440495602234, 0.2450645358671368, 14.999999999999345}, grad = {0/0, 0/0, -0.09942716089980927, 0.030227633404826867, -0.23804282926342107, 0.5000000000006309}}
R.touch.generalizedBoxIouLoss = {out = {1.0, 1.333333327777778, 1.4999999875000003, 0.6666666888888875}, grad1 = {{0.0, 0.0, -0.4999999750000013, 0.0}, {-0.055555556481481444, -2.7777777300563855e-09, -0.16666666388888893, -0.33333332777777785}, {-6.249999712215626e-09, -6.249999712215626e-09, -0.24999999375000015, -0.24999999375000015}, {-0.22222219259259557, 1.1111109587957912e-08, -0.6666666222222252, -1.1111109587957912e-08}}, grad2 = {{0.4999999750000013, 0.0, 0.0, 0.0}, {0.16666666388888893, 0.33333332777777785, 0.055555556481481444, 2.7777777300563855e-09}, {0.24999999375000015, 0.24999999375000015, 6.249999712215626e-09, 6.249999712215626e-09}, {0.6666666222222252, 1.1111109587957912e-08, 0.22222219259259557, -1.1111109587957912e-08}}}
R.touch.distanceBoxIouLoss = {out = {1.199999996, 1.153846152662722, 1.249999996875, 0.7435897634451005}, grad1 = {{-0.0400000023999999, 0.03999999840000004, -0.19999999600000007, -0.03999999840000004}, {-0.005917160263996343, -0.029585798953117887, -0.07692307633136096, -0.07692307633136096}, {-1.5624999488705882e-09, -1.5624999488705882e-09, -0.12499999843750002, -0.12499999843750002}, {-0.30506242891485313, 0.02366864870783252, -0.8205127713346514, -0.02366864870783252}}, grad2 = {{0.19999999600000007, 0.03999999840000004, 0.0400000023999999, -0.03999999840000004}, {0.07692307633136096, 0.07692307633136096, 0.005917160263996343, 0.029585798953117887}, {0.12499999843750002, 0.12499999843750002, 1.5624999488705882e-09, 1.5624999488705882e-09}, {0.8205127713346514, 0.02366864870783252, 0.30506242891485313, -0.02366864870783252}}}
R.touch.completeBoxIouLoss = {out = {1.199999996, 1.153846152662722, 1.249999996875, 0.7435897634451005}, grad1 = {{-0.0400000023999999, 0.03999999840000004, -0.19999999600000007, -0.03999999840000004}, {-0.005917160263996343, -0.029585798953117887, -0.07692307633136096, -0.07692307633136096}, {-1.5624999488705882e-09, -1.5624999488705882e-09, -0.12499999843750002, -0.12499999843750002}, {-0.30506242891485313, 0.02366864870783252, -0.8205127713346514, -0.02366864870783252}}, grad2 = {{0.19999999600000007, 0.03999999840000004, 0.0400000023999999, -0.03999999840000004}, {0.07692307633136096, 0.07692307633136096, 0.005917160263996343, 0.029585798953117887}, {0.12499999843750002, 0.12499999843750002, 1.5624999488705882e-09, 1.5624999488705882e-09}, {0.8205127713346514, 0.02366864870783252, 0.30506242891485313, -0.02366864870783252}}}

local function ops_where(m) return torch.nonzero(m):view(-1) end

-- got against want (a table or tensor) elementwise: NaN where want has NaN, the same infinities,
-- the rest within tol; or against a checksum table {sum =, wsum =, first =}.
local function close(name, got, want, tol)
  tol = tol or 1e-12
  got = got:detach():double()
  if type(want) == 'table' and want.sum then return C.checksum(name, got, want, tol) end
  want = torch.isTensor(want) and want or D(want)
  tester:assert(got:nElement() == want:nElement(), name .. ': ' .. got:nElement() .. ' elements, expected ' .. want:nElement())
  if got:nElement() == 0 or got:nElement() ~= want:nElement() then return end
  local a, b = got:reshape(-1), want:reshape(-1)
  local an, bn = a:ne(a), b:ne(b)
  tester:assert(an:eq(bn):all(), name .. ': NaN in different places')
  local ai, bi = torch.isinf(a), torch.isinf(b)
  tester:assert(ai:eq(bi):all(), name .. ': infinities in different places')
  local fin = torch.cmul(an:eq(0), ai:eq(0))
  if fin:any() then
    local keep = ops_where(fin)
    tester:assert(a:index(1, keep):eq(b:index(1, keep)):all() or (a:index(1, keep) - b:index(1, keep)):abs():max() <= tol,
      name .. ': max error ' .. (a:index(1, keep) - b:index(1, keep)):abs():max())
  end
  if ai:any() then
    local keep = ops_where(ai)
    tester:assert(a:index(1, keep):eq(b:index(1, keep)):all(), name .. ': infinities of different signs')
  end
end

local X = seq(0.37, 0.1, 2, 12, 7, 9)
-- the script's B with its batch column 1-based (Note [Batch indices of boxes], nn/ops/roi.lua)
local B = D{{1, 0.5, 0.5, 2.5, 2.5}, {2, 1.5, 0.5, 6.5, 4.5}, {1, -3, -2, 4, 3}, {2, 5, 4, 12, 10}, {1, 10, 8, 14, 12},
            {2, 3, 3, 3, 3}, {1, 6, 5, 2, 1}, {2, 0.25, 1.75, 8.75, 6.25}, {1, 2.5, 3.5, 3.5, 4.5}, {2, -1.5, -0.5, 0.5, 1.5}}

-- fn's output for x and the gradient of sum(output * seq(0.71, 0.3)) in x
local function run(fn, x)
  local xx = x:clone():requiresGrad()
  local y = fn(xx)
  torch.cmul(y, seq(0.71, 0.3, unpack(y:size():totable())):typeAs(y)):sum():backward()
  return y:detach(), xx.grad
end

-- Zero-size and inverted boxes with adaptive sampling have no samples; aligned = true used to
-- make 0 / 0 sample positions and fail in scatterAdd (Note [RoIAlign as two matrix products]).
function tests.roiAlignEdgeBoxes()
  for _, c in ipairs(R.align) do
    local name = string.format('roiAlign aligned=%s ratio=%d scale=%g', tostring(c.aligned), c.ratio, c.scale)
    local ok, y, g = pcall(run, function(x) return nn.ops.roiAlign(x, B, { 2, 3 }, c.scale, c.ratio, c.aligned) end, X)
    tester:assert(ok, name .. ': ' .. tostring(y))
    if ok then close(name, y, c.out, 1e-12); close(name .. ' gradient', g, c.grad, 1e-12) end
  end
  -- float32 against torchvision's float32 kernel: samples on the image's edge stay on it
  close('roiAlign float32 aligned', nn.ops.roiAlign(X:float(), B:float(), { 2, 3 }, 1, -1, true), R.align_f32, 2e-6)
  -- the same boxes as a list of per-image tensors
  local list = { B:index(1, torch.LongTensor{ 1, 3, 5, 7, 9 }):narrow(2, 2, 4), B:index(1, torch.LongTensor{ 2, 4, 6, 8, 10 }):narrow(2, 2, 4) }
  local whole = nn.ops.roiAlign(X, B, { 2, 3 }, 1, 0, true)
  local byList = nn.ops.roiAlign(X, list, { 2, 3 }, 1, 0, true)
  close('roiAlign list of boxes', byList, whole:index(1, torch.LongTensor{ 1, 3, 5, 7, 9, 2, 4, 6, 8, 10 }), 0)
  -- non-contiguous input and boxes
  local xt = X:transpose(3, 4):contiguous():transpose(3, 4)
  local bt = B:t():contiguous():t()
  close('roiAlign non-contiguous', nn.ops.roiAlign(xt, bt, { 2, 3 }, 1, 0, true), whole, 0)
end

function tests.roiPoolEdgeBoxes()
  for _, mode in ipairs({ 'windows', 'tables', false }) do
    nn.ops._roiPoolMode = mode or nil
    for _, c in ipairs(R.pool) do
      local name = string.format('roiPool (%s) scale=%g', tostring(mode), c.scale)
      local ok, y, g = pcall(run, function(x) return nn.ops.roiPool(x, B, { 2, 3 }, c.scale) end, X)
      tester:assert(ok, name .. ': ' .. tostring(y))
      if ok then close(name, y, c.out, 1e-12); close(name .. ' gradient', g, c.grad, 1e-12) end
    end
  end
  nn.ops._roiPoolMode = nil
end

-- Note [Zero-size boxes in psRoiAlign] (nn/ops/roi_ps.lua): torchvision 0.14 divides by a count
-- of 0 samples there (NaN); the script's nan_to_num gives the 0 Tocha gives.
function tests.psRoiEdgeBoxes()
  for _, c in ipairs(R.psalign) do
    local name = string.format('psRoiAlign ratio=%d scale=%g', c.ratio, c.scale)
    local ok, y, g = pcall(run, function(x) return nn.ops.psRoiAlign(x, B, { 2, 3 }, c.scale, c.ratio) end, X)
    tester:assert(ok, name .. ': ' .. tostring(y))
    if ok then close(name, y, c.out, 1e-12); close(name .. ' gradient', g, c.grad, 1e-12) end
  end
  for _, c in ipairs(R.pspool) do
    close(string.format('psRoiPool scale=%g', c.scale), nn.ops.psRoiPool(X, B, { 2, 3 }, c.scale), c.out, 1e-12)
  end
end

function tests.edgeBoxGradchecks()
  local x = seq(0.9, 0.2, 1, 6, 5, 6)
  local b = D{{1, 3, 3, 3, 3}, {1, 4, 3, 1, 2}, {1, -2, -1, 7, 6}, {1, 0.5, 0.5, 2.5, 4.5}}
  gradcheck('roiAlign aligned adaptive', function(z) return nn.ops.roiAlign(z, b, { 2, 2 }, 1, 0, true) end, { x:clone():requiresGrad() })
  gradcheck('roiAlign fixed, scale', function(z) return nn.ops.roiAlign(z, b, { 2, 3 }, 0.7, 2, false) end, { x:clone():requiresGrad() })
  gradcheck('psRoiAlign adaptive', function(z) return nn.ops.psRoiAlign(z, b, { 1, 2 }, 1, -1) end, { x:clone():requiresGrad() })
  gradcheck('roiPool', function(z) return nn.ops.roiPool(z, b, { 2, 2 }, 1) end, { x:clone():requiresGrad() })
end

-- Note [Non-finite boxes] (nn/ops/roi.lua): torchvision crashes on them; here a named error.
function tests.nonFiniteBoxes()
  local x = seq(0.9, 0.2, 2, 4, 5, 6)
  local bad = { D{{1, 0 / 0, 0, 3, 3}}, D{{1, 0, 0, math.huge, 3}}, D{{2, 0, -math.huge, 3, 3}} }
  for i, b in ipairs(bad) do
    for _, fn in ipairs({ 'roiAlign', 'roiPool', 'psRoiAlign', 'psRoiPool' }) do
      fails(fn .. ' ' .. i, '[nn.ops.' .. fn .. '] box 1 has a non-finite coordinate', nn.ops[fn], x, b, 2)
    end
    fails('roiAlign fixed ratio ' .. i, '[nn.ops.roiAlign] box 1 has a non-finite', nn.ops.roiAlign, x, b, 2, 1, 2, true)
  end
  fails('roiAlign list', '[nn.ops.roiAlign] box 2 has a non-finite', nn.ops.roiAlign, x, { D{{0, 0, 1, 1}}, D{{0, 0 / 0, 1, 1}} }, 2)
  fails('RoIAlign module', '[nn.ops.roiAlign] box 1 has a non-finite', function() return nn.ops.RoIAlign(2, 1, -1):forward({ x, bad[1] }) end)
  local ms = nn.ops.MultiScaleRoIAlign({ 'a', 'b' }, 2, 2)
  fails('MultiScaleRoIAlign', '[nn.ops.MultiScaleRoIAlign] box 1 has a non-finite', function()
    return ms:forward({ { a = x, b = seq(0.3, 0.1, 2, 4, 3, 3) }, { D{{0, 0 / 0, 1, 1}}, D(0, 4) }, { { 10, 12 } } })
  end)
end

-- Note [Images of no pixels] (nn/ops/roi.lua): height or width 0 used to fail in scatterAdd or
-- clamp; torchvision's roi_pool and ps_roi_pool give 0 there.
function tests.imagesOfNoPixels()
  local b = D{{1, 0, 0, 2, 2}, {2, -1, 0, 3, 1}}
  for _, size in ipairs({ { 2, 4, 0, 5 }, { 2, 4, 5, 0 } }) do
    local x = D(unpack(size))
    for _, fn in ipairs({ 'roiAlign', 'roiPool', 'psRoiAlign', 'psRoiPool' }) do
      local name = fn .. ' of ' .. table.concat(size, 'x')
      local ok, y = pcall(nn.ops[fn], x, b, 2)
      tester:assert(ok, name .. ': ' .. tostring(y))
      if ok then
        local c = fn:find('^ps') and 1 or 4
        tester:assertTableEq(y:size():totable(), { 2, c, 2, 2 }, name .. ': size')
        tester:asserteq(y:abs():sum(), 0, name .. ': zeros')
      end
      fails(name .. ', bad batch index', '[nn.ops.' .. fn .. '] the batch indices', nn.ops[fn], x, D{{3, 0, 0, 1, 1}}, 2)
    end
  end
end

-- Note [Boxes of no level] (nn/ops/poolers.lua): a box of negative area was dropped, the rows
-- after it shifted up and the result one row short.
function tests.multiScaleNegativeArea()
  local f = { a = seq(1.0, 1.0, 2, 2, 16, 16), b = seq(0.5, 0.2, 2, 2, 8, 8), c = seq(0.3, 0.3, 2, 2, 4, 4) }
  local boxes = { D{{0, 0, 10, 10}, {5, 5, 4, 6}, {1, 1, 30, 30}}, D{{0, 0, 60, 60}, {2, 2, 2, 2}, {0, 0, 120, 120}} }
  local m = nn.ops.MultiScaleRoIAlign({ 'a', 'b', 'c' }, 2, 2)
  local y = m:forward({ f, boxes, { { 64, 64 }, { 60, 50 } } })
  tester:assertTableEq(y:size():totable(), { 6, 2, 2, 2 }, 'one row per box')
  close('MultiScaleRoIAlign', y:view(6, -1), R.ms, 1e-12)
  local ff = {}
  for k, v in pairs(f) do ff[k] = v:float() end
  local fb = { boxes[1]:float(), boxes[2]:float() }
  close('MultiScaleRoIAlign float32', nn.ops.MultiScaleRoIAlign({ 'a', 'b', 'c' }, 2, 2):forward({ ff, fb, { { 64, 64 }, { 60, 50 } } }):view(6, -1), R.ms, 1e-6)
  -- every box of no level
  local y2 = nn.ops.MultiScaleRoIAlign({ 'a', 'b', 'c' }, 2, 2):forward({ f, { D{{5, 5, 4, 6}}, D{{3, 1, 4, 0}} }, { { 64, 64 } } })
  close('MultiScaleRoIAlign, no box in a level', y2, torch.zeros(2, 2, 2, 2), 0)
  fails('image shapes', '[nn.ops.MultiScaleRoIAlign] imageShapes[1] must be {h, w} of positive numbers, got number', function()
    return nn.ops.MultiScaleRoIAlign({ 'a', 'b' }, 2, 2):forward({ f, boxes, { 64, 64 } })
  end)
end

function tests.nmsEdges()
  local bb = D{{0, 0, 10, 10}, {0, 0, 10, 10}, {0, 0, 10, 10}, {5, 0, 15, 10}, {20, 20, 30, 30}, {0, 0, 10, 10}, {10, 10, 4, 4}, {10, 10, 4, 4}}
  local ss = D{0.5, 0.9, 0.5, 0.9, 0.1, 0.9, 0.95, 0.2}
  for _, c in ipairs(R.nms) do
    close('nms ties, threshold ' .. c.thr, nn.ops.nms(bb, ss, c.thr), c.d, 0)
    close('nms ties float32, threshold ' .. c.thr, nn.ops.nms(bb:float(), ss:float(), c.thr), c.f, 0)
    close('nms by matrix, threshold ' .. c.thr, nn.ops._nmsByMatrix(bb:float(), ss:float(), c.thr), c.f, 0)
    -- a non-contiguous copy of the boxes, integer-valued scores of another layout
    close('nms non-contiguous, threshold ' .. c.thr, nn.ops.nms(bb:t():contiguous():t(), ss:view(8, 1):expand(8, 2):select(2, 2), c.thr), c.d, 0)
  end
  local b3 = D{{0, 0, 2, 1}, {1, 0, 3, 1}}
  for _, c in ipairs(R.third) do
    close('nms IoU 1/3, threshold ' .. c.thr, nn.ops.nms(b3, D{0.9, 0.8}, c.thr), c.d, 0)
    close('nms IoU 1/3 float32, threshold ' .. c.thr, nn.ops.nms(b3:float(), torch.FloatTensor{0.9, 0.8}, c.thr), c.f, 0)
    close('nms by matrix IoU 1/3 float32, threshold ' .. c.thr, nn.ops._nmsByMatrix(b3:float(), torch.FloatTensor{0.9, 0.8}, c.thr), c.f, 0)
  end
  local bn = D{{0, 0, 1, 1}, {0, 0, 1, 1}, {0 / 0, 0, 1, 1}, {0, 0, 1, 1}}
  local bn3 = bn:index(1, torch.LongTensor{1, 2, 4})
  close('nms NaN score', nn.ops.nms(bn3, D{0.5, 0 / 0, 0.7}, 0.5), R.nms_nan_scores, 0)
  close('nms NaN box', nn.ops.nms(bn, D{0.5, 0.6, 0.9, 0.7}, 0.5), R.nms_nan_box, 0)
  close('nms infinite scores', nn.ops.nms(bn3, D{-math.huge, math.huge, 0.7}, 0.5), R.nms_inf_scores, 0)
  local j = torch.range(0, 199)
  local function mod(v, m) return v - torch.floor(v / m) * m end
  local bx = torch.stack({ mod(j * 37, 41), mod(j * 53, 43), mod(j * 37, 41) + 5 + mod(j * 13, 29), mod(j * 53, 43) + 5 + mod(j * 7, 31) }, 2)
  local sc = mod(j * 17, 23) / 23 + j * 1e-4
  local cat = mod(j * 7, 50):long()
  close('batchedNms, 50 categories', nn.ops.batchedNms(bx, sc, cat, 0.3), R.bnms, 0)
  close('batchedNms by matrix', nn.ops._nmsByMatrix(bx, sc, 0.3, cat), R.bnms, 0)
  close('batchedNms, negative categories', nn.ops.batchedNms(bx, sc, cat * 1000 - 3000, 0.3), R.bnms_neg, 0)
  -- double categories: the sort key was built in their own storage (cats:double() is cats)
  local dcat = cat:double()
  close('batchedNms, double categories', nn.ops.batchedNms(bx, sc, dcat, 0.3), R.bnms, 0)
  close('batchedNms, double categories left alone', dcat, cat:double(), 0)
  close('batchedNms, float categories', nn.ops.batchedNms(bx, sc, cat:float(), 0.3), R.bnms, 0)
  -- kept indices are a LongTensor, 1-based (torchvision's + 1), as removeSmallBoxes' are
  local keep = nn.ops.nms(D{{0, 0, 1, 1}, {5, 5, 6, 6}, {0, 0, 1, 1}}, D{0.1, 0.9, 0.5}, 0.5)
  tester:asserteq(keep:type(), 'torch.LongTensor', 'nms gives a LongTensor')
  close('nms 1-based', keep, { 2, 3 }, 0)
  close('removeSmallBoxes 1-based', nn.ops.removeSmallBoxes(D{{0, 0, 1, 1}, {5, 5, 6, 6}, {0, 0, 0.5, 1}}, 1), { 1, 2 }, 0)
end

function tests.degenerateAndIntegerBoxes()
  local b1 = D{{0, 0, 2, 2}, {3, 3, 3, 3}, {4, 4, 2, 1}, {0, 0, 0, 5}, {-1, -1, 1, 1}}
  local b2 = D{{3, 3, 3, 3}, {0, 0, 2, 2}, {1, 1, 0, 0}, {0, 0, 1e-9, 1}}
  local bi, bj = torch.LongTensor{{0, 0, 2, 2}, {1, 1, 4, 3}}, torch.LongTensor{{1, 1, 3, 3}, {0, 0, 1, 1}, {2, 2, 5, 7}}
  for name, want in pairs(R.iou) do
    close(name .. ' of degenerate boxes', nn.ops[name](b1, b2), want.degenerate, 1e-9)
    local r = nn.ops[name](bi, bj)
    tester:asserteq(r:type(), 'torch.FloatTensor', name .. ' of integer boxes is float32, as torchvision')
    close(name .. ' of integer boxes', r, want.int, 1e-6)
  end
  for _, c in ipairs(R.conv) do
    local r = nn.ops.boxConvert(torch.LongTensor{{1, 2, 4, 7}, {0, 0, 3, 3}}, c[1], c[2])
    close('boxConvert ' .. c[1] .. ' -> ' .. c[2], r, c[3], 0)
    tester:asserteq(nn.utils.isFloating(r), c[4], 'boxConvert ' .. c[1] .. ' -> ' .. c[2] .. ': floating as torchvision')
  end
  -- integer boxes and a fractional minimum (torchvision [1], 0-based)
  close('removeSmallBoxes, integer boxes', nn.ops.removeSmallBoxes(torch.LongTensor{{0, 0, 1, 1}, {0, 0, 2, 2}, {0, 0, 2, 1}}, 1.5), { 2 }, 0)
  close('clipBoxesToImage, integer boxes', nn.ops.clipBoxesToImage(torch.LongTensor{{-1, 2, 9, 5}}, { 4, 8 }), { { 0, 2, 8, 4 } }, 0)
  -- a negative size failed in clamp, naming clamp
  fails('clipBoxesToImage, negative size', '[nn.ops.clipBoxesToImage] size must be {height, width} of non-negative numbers, got {-1, 3}',
    nn.ops.clipBoxesToImage, D{{0, 0, 1, 1}}, { -1, 3 })
end

function tests.lossesOfDegenerateBoxes()
  local p = D{{0, 0, 2, 2}, {3, 3, 3, 3}, {4, 4, 2, 1}, {0, 0, 1, 1}, {1, 1, 2, 3}}
  local g = D{{0, 0, 2, 2}, {3, 3, 3, 3}, {0, 0, 1, 1}, {2, 2, 3, 3}, {1, 1, 2, 3}}
  for name, want in pairs(R.loss) do
    local pp = p:clone():requiresGrad()
    local l = nn.ops[name](pp, g)
    l:sum():backward()
    close(name, l, want.out, 1e-12)
    close(name .. ' gradient', pp.grad, want.grad, 1e-12)
  end
  -- Note [Intersections of touching boxes] (nn/ops/losses.lua): no gradient through a side of 0
  local tp, tg = D{{0, 0, 1, 1}, {0, 0, 2, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}}, D{{1, 0, 2, 1}, {1, 1, 3, 2}, {1, 1, 2, 2}, {0.5, 0, 1.5, 1}}
  for name, want in pairs(R.touch) do
    local pp, gg = tp:clone():requiresGrad(), tg:clone():requiresGrad()
    local l = nn.ops[name](pp, gg)
    l:sum():backward()
    close(name .. ' of touching boxes', l, want.out, 1e-12)
    close(name .. ' of touching boxes, gradient in boxes1', pp.grad, want.grad1, 1e-12)
    close(name .. ' of touching boxes, gradient in boxes2', gg.grad, want.grad2, 1e-12)
    -- float32 boxes compute and differentiate the same way
    local pf = tp:float():requiresGrad()
    nn.ops[name](pf, tg:float()):sum():backward()
    close(name .. ' of touching float32 boxes, gradient', pf.grad, want.grad1, 1e-6)
  end
  local x, t = D{50, -50, 1, -2, 0, 30}, D{1, 0, 1, 0, 1, 0}
  for _, c in ipairs(R.focal) do
    local xx = x:clone():requiresGrad()
    local l = nn.ops.sigmoidFocalLoss(xx, t, c.alpha, c.gamma)
    l:sum():backward()
    close('sigmoidFocalLoss alpha ' .. c.alpha .. ' gamma ' .. c.gamma, l, c.out, 1e-12)
    close('sigmoidFocalLoss gradient alpha ' .. c.alpha .. ' gamma ' .. c.gamma, xx.grad, c.grad, 1e-12)
  end
end

-- Note [Classes as the last positional argument] (nn/ops/layers.lua): a class given last was
-- read as an empty options table and replaced by the default.
function tests.layersTakeClassesPositionally()
  local se = nn.ops.SqueezeExcitation(4, 2, nn.ReLU, nn.Hardsigmoid)
  tester:asserteq(torch.typename(se.scale_activation), 'nn.Hardsigmoid', 'SqueezeExcitation scaleActivation')
  tester:asserteq(torch.typename(nn.ops.SqueezeExcitation(4, 2, nn.SiLU).activation), 'nn.SiLU', 'SqueezeExcitation activation')
  local c = nn.ops.Conv2dNormActivation(3, 8, 3, 1, 1, 1, nn.BatchNorm2d, nn.ReLU6)
  tester:asserteq(torch.typename(c.modules[3]), 'nn.ReLU6', 'Conv2dNormActivation activationLayer')
  local byFunction = nn.ops.Conv2dNormActivation(3, 8, 3, 1, 1, 1, function(n) return nn.BatchNorm2d(n) end)
  tester:asserteq(torch.typename(byFunction.modules[2]), 'nn.BatchNorm2d', 'a function as normLayer')
  -- torchvision: sorted(O.MLP(4, [8, 3], norm_layer=torch.nn.BatchNorm1d).state_dict().keys()), less
  -- 1.num_batches_tracked (Tocha's batch norms keep no such buffer)
  local keys = {}
  for k in pairs(nn.ops.MLP(4, { 8, 3 }, nn.BatchNorm1d):stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { '0.bias', '0.weight', '1.bias', '1.running_mean', '1.running_var', '1.weight', '4.bias', '4.weight' }, 'MLP normLayer')
  -- options tables still work, and an unknown option still fails
  tester:asserteq(torch.typename(nn.ops.SqueezeExcitation(4, 2, { scaleActivation = nn.Hardsigmoid }).scale_activation), 'nn.Hardsigmoid')
  fails('unknown option', '[nn.ops.MLP] unknown option norm', nn.ops.MLP, 4, { 8 }, { norm = nn.BatchNorm1d })
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
    return
  end
  local xc, bc = X:float():cuda(), B:float():cuda()
  close('roiAlign aligned on CUDA', nn.ops.roiAlign(xc, bc, { 2, 3 }, 1, -1, true):to('cpu'), R.align_f32, 2e-6)
  close('roiAlign edge boxes on CUDA', nn.ops.roiAlign(xc, bc, { 2, 3 }, 0.5, 0, true):to('cpu'),
    nn.ops.roiAlign(X:float(), B:float(), { 2, 3 }, 0.5, 0, true), 1e-6)
  close('psRoiAlign edge boxes on CUDA', nn.ops.psRoiAlign(xc, bc, { 2, 3 }, 1, -1):to('cpu'),
    nn.ops.psRoiAlign(X:float(), B:float(), { 2, 3 }, 1, -1), 1e-6)
  fails('non-finite on CUDA', '[nn.ops.roiAlign] box 1 has a non-finite', nn.ops.roiAlign, xc, D{{1, 0 / 0, 0, 1, 1}}:float():cuda(), 2)
  local f = { a = seq(1.0, 1.0, 2, 2, 16, 16):float():cuda(), b = seq(0.5, 0.2, 2, 2, 8, 8):float():cuda(), c = seq(0.3, 0.3, 2, 2, 4, 4):float():cuda() }
  local boxes = { D{{0, 0, 10, 10}, {5, 5, 4, 6}, {1, 1, 30, 30}}:float():cuda(), D{{0, 0, 60, 60}, {2, 2, 2, 2}, {0, 0, 120, 120}}:float():cuda() }
  close('MultiScaleRoIAlign on CUDA', nn.ops.MultiScaleRoIAlign({ 'a', 'b', 'c' }, 2, 2):forward({ f, boxes, { { 64, 64 }, { 60, 50 } } }):to('cpu'):view(6, -1), R.ms, 1e-6)
  local bb = D{{0, 0, 10, 10}, {0, 0, 10, 10}, {0, 0, 10, 10}, {5, 0, 15, 10}, {20, 20, 30, 30}, {0, 0, 10, 10}, {10, 10, 4, 4}, {10, 10, 4, 4}}
  local ss = D{0.5, 0.9, 0.5, 0.9, 0.1, 0.9, 0.95, 0.2}
  for _, c in ipairs(R.nms) do
    close('nms ties on CUDA, threshold ' .. c.thr, nn.ops.nms(bb:float():cuda(), ss:float():cuda(), c.thr):to('cpu'), c.f, 0)
  end
  local tp, tg = D{{0, 0, 1, 1}, {0, 0, 2, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}}, D{{1, 0, 2, 1}, {1, 1, 3, 2}, {1, 1, 2, 2}, {0.5, 0, 1.5, 1}}
  for name, want in pairs(R.touch) do
    local pc = tp:float():cuda():requiresGrad()
    nn.ops[name](pc, tg:float():cuda()):sum():backward()
    close(name .. ' of touching boxes on CUDA, gradient', pc.grad:to('cpu'), want.grad1, 1e-6)
  end
  close('roiPool of no pixels on CUDA', nn.ops.roiPool(torch.CudaTensor(1, 2, 0, 3), D{{1, 0, 0, 1, 1}}:float():cuda(), 2):to('cpu'), torch.zeros(1, 2, 2, 2), 0)
  tester:asserteq(nn.ops.batchedNms(bb:cuda(), ss:cuda(), D{1, 1, 1, 1, 2, 2, 2, 2}:cuda(), 0.5):nElement(),
    nn.ops.batchedNms(bb, ss, D{1, 1, 1, 1, 2, 2, 2, 2}, 0.5):nElement(), 'batchedNms of double categories on CUDA')
end

tester:add(tests)
tester:run()
