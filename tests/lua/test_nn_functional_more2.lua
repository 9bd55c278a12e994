-- nn.functional's names added by functional_more2*.lua: in-place activations, *WithIndices pools,
-- maxUnpool1d/3d, bilinear, convTbc, multilabelMarginLoss, embedding's maxNorm/scaleGradByFreq,
-- fractional max pooling: values against PyTorch 1.13 (pasted constants), gradchecks in f64, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

local X, near, gradcheck, raises = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/functional_checks.lua')(tester)

-- PyTorch 1.13 values (float64) for the inputs X(...) below; indices +1 (1-based).
local PT = {
  BIL = {1.4083632666931496, 0.29176848827301327, 1.2912123999910516, 0.9669301490558132,
      0.67807845816313828, 1.6527073005222832, -0.0015630875599998428, 1.8674221871017158, -0.33075857688649846,
      1.5659021770210317, -0.25949307511928721, 1.0699218219071676},
  BIL_GW = {-0.29170976074467614, -2.1460431569739034, -2.9910589236289824, -2.4293329419164538,
      1.8567518235201073, 1.2264734830000426, 0.019365499248248264, -1.1968503813942704, 3.1319540126358389,
      4.0221604797422579, 3.0206820252347542, 0.59852961480071709, -3.7407125930369389, -3.9178617976242496,
      -2.2523793805095931, 0.47243225365736974, -1.713078245151304, -4.0499871113542003, -4.4821237562929577,
      -2.8062475635315476, 1.120243569014943, -2.2773402038200152, -4.6038552943761468, -4.7651053027638319},
  BIL_GX1 = {1.5099847851261865, -3.2066749577659395, 4.5328167838133959, 2.9498794023561157,
      -1.3674857742353224, -0.37292810829391509, -6.263021854490832, 6.3116430088809707, -5.6309202440947717,
      5.0006455985825591, -6.7897894583725433, 7.7943370336477598, -1.360025244826254, 3.552756834636897,
      -5.3349484762900463, -0.89342956652352368, -0.60977039527979549, 2.0425081447454865},
  TBC = {0.94648477790702734, 1.059318892275992, 0.67393877929328272, -0.02840527217497385,
      -0.570439615667508, -0.06697195049162058, 0.46799366946606502, 0.78285455407106541, 0.22639130810320912,
      1.6475762167818149, 2.293880286619399, 1.8613366147916863, 1.314206468644262, 1.1954264145006808,
      0.51441863856445436, -0.40852826110159562, -0.95540180367237315, -0.49701605701237622,
      0.19512410735065339, 0.79549435512839661, 0.24838882627990561, 1.6639797232742022, 2.2969749560122481,
      1.8496669757139972, 1.3025390780261077, 1.1744815913184421, 0.49404706043262825, -0.41874552267292253,
      -0.96561884844022983, -0.49227173871459173, 0.21259846168661256, 0.81748028361401059, 0.27037228740121022,
      1.6801342452332044, 2.2997028147102609, 1.8376852165813773, 1.2905595933685368, 1.1534261780553057,
      0.47381840842148665, -0.42863356230982236, -0.57363311839446052, -0.065867041393743497,
      0.47287733437536278, 0.78922011087556621, 0.24671692638541678, 1.3846463114701821, 1.8713549005750867,
      1.4779360392126115},
  MLM_NONE = {1.3672965507499679, 0.078236543440057676, 0.66845293831757435},
  MLM_MEAN = 0.70466201083586666,
  MLM_G = {-0.20000000000000001, 0.13333333333333333, 0.13333333333333333, -0.20000000000000001,
      0.13333333333333333, 0.066666666666666666, 0, 0, 0.066666666666666666, -0.13333333333333333,
      0.20000000000000001, -0.26666666666666666, -0.13333333333333333, 0.20000000000000001, 0},
  MLM_VEC = 1.3672965507499679,
  UNP1 = {0, 0.8414709848078965, 0.99166481045246857, 0.67546318055115129, 0, -0.61185789094271892, 0, 0,
      0.31154136351337786, 0, 0.9893582466233819, 0, 0.024775425453357765, 0},
  UNP1_OS = {0, 0.8414709848078965, 0.99166481045246857, 0.67546318055115129, 0, -0.61185789094271892, 0, 0,
      0, 0.31154136351337786, 0, 0.9893582466233819, 0, 0.024775425453357765, 0, 0},
  UNP3_OS = {0, 0, 0.99166481045246857, 0, 0, 0, 0, 0, 0, 0, 0, 0.9893582466233819, 0, 0, 0, 0, 0, 0, 0, 0,
      0.98677196427461333, 0, 0, 0, 0, 0, 0, 0, 0, 0.98390669461861668, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0.97734251239226011, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.96967312291192076,
      0, 0, 0, 0, 0, 0, 0, 0.90633040797266073, 0.96542663712974364, 0, 0, 0, 0, 0},
  UNP3 = {0, 0.8414709848078965, 0.99166481045246857, 0, 0, 0, 0, 0, 0, 0, 0, 0.9893582466233819, 0, 0, 0,
      0, 0, 0, 0, 0, 0.98677196427461333, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.87588107981088936,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0.97734251239226011, 0, 0, 0, 0, 0, 0, 0, 0, 0.97364545569497973, 0, 0, 0, 0,
      0, 0, 0, 0, 0.96967312291192076, 0, 0, 0, 0, 0, 0, 0, 0.90633040797266073, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0.96090719894562249, 0, 0, 0, 0, 0, 0, 0, 0.92002603819678785, 0.95611608612781074, 0, 0, 0, 0, 0, 0, 0,
      0, 0.95105465325437899, 0, 0, 0, 0, 0, 0, 0, 0.93268127629801578, 0.94572433133023504, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.94428181136612066, 0.93426312403469058, 0, 0, 0, 0, 0, 0, 0,
      0.94968241881421989, 0, 0, 0, 0, 0, 0, 0, 0, 0.95481452517966225, 0.92174542490673472, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.90818538932352377, 0, 0, 0, 0, 0, 0, 0, 0.96858570992034099, 0, 0, 0,
      0, 0, 0, 0, 0, 0.97263006724240464, 0, 0, 0, 0, 0, 0, 0, 0, 0.97639943555666542, 0},
  EMB_MN = {0.12148086245018928, 0.87290447961583528, 1.213787480509418, -0.95698521002167425,
      -1.0016486223437751, -0.57522103638614053, -0.95698521002167425, -1.0016486223437751,
      -0.57522103638614053, 1.2649099932917398, 0.35308732638529278, -0.72479782726181907},
  EMB_MN_W = {0.12148086245018928, 0.87290447961583528, 1.213787480509418, 2.4254892114587712,
      0.71774798764194725, -1.3275613298845574, -0.95698521002167425, -1.0016486223437751, -0.57522103638614053,
      0.3496476145514783, 2.1869071203776276, 2.9956300361238144, 1.2649099932917398, 0.35308732638529278,
      -0.72479782726181907},
  EMB_MN1_W = {0.11002839902454921, 0.79061245085305987, 1.0993591133850598, 2.4254892114587712,
      0.71774798764194725, -1.3275613298845574, -0.75535912389721371, -0.79061245451150608,
      -0.45402839410866302, 0.3496476145514783, 2.1869071203776276, 2.9956300361238144, 1.0798297635494039,
      0.30142397971788698, -0.61874621165455435},
  EMB_SG = {0.38941834230865052, 0.89120736006143542, 0.97384763087819526, 0, 0, 0, -0.19760942976475376,
      -0.44532079282574044, -0.48359082869144981, 0, 0, 0, 0, 0, 0},
  CIRC1 = {0.67546318055115129, 0.041580662433290935, 0.29552020666133955, 0.8414709848078965,
      0.99166481045246857, 0.67546318055115129, 0.041580662433290935, 0.29552020666133955, 0.8414709848078965,
      0.99166481045246857, -0.37387666483023685, 0.31154136351337786, -0.61185789094271892, -0.9775301176650969,
      -0.88345465572015358, -0.37387666483023685, 0.31154136351337786, -0.61185789094271892,
      -0.9775301176650969, -0.88345465572015358},
  CIRC2 = {-0.88345465572015358, 0.041580662433290935, -0.61185789094271892, -0.9775301176650969,
      -0.88345465572015358, 0.041580662433290935, -0.61185789094271892, 0.9893582466233819,
      -0.37387666483023685, 0.31154136351337786, 0.8504366206285644, 0.9893582466233819, -0.37387666483023685,
      0.31154136351337786, 0.67546318055115129, 0.29552020666133955, 0.8414709848078965, 0.99166481045246857,
      0.67546318055115129, 0.29552020666133955, 0.8414709848078965, -0.88345465572015358, 0.041580662433290935,
      -0.61185789094271892, -0.9775301176650969, -0.88345465572015358, 0.041580662433290935,
      -0.61185789094271892, 0.9893582466233819, -0.37387666483023685, 0.31154136351337786, 0.8504366206285644,
      0.9893582466233819, -0.37387666483023685, 0.31154136351337786},
  CIRC_NEG = {0.99166481045246857, 0.67546318055115129, 0.041580662433290935, 0.99166481045246857,
      -0.88345465572015358, -0.37387666483023685, 0.31154136351337786, -0.88345465572015358},
  CIRC_NEG2 = {0.99166481045246857, 0.67546318055115129, 0.29552020666133955, 0.8414709848078965,
      0.99166481045246857, 0.67546318055115129, -0.88345465572015358, -0.37387666483023685,
      -0.61185789094271892, -0.9775301176650969, -0.88345465572015358, -0.37387666483023685},
  UPB = {0.29552020666133955, 0.56849559573461805, 0.8414709848078965, 0.91656789763018254,
      0.99166481045246857, 0.48549169360624544, 0.46350875861341956, 0.44152582362059373, 0.31571464168773422,
      0.18990345975487483, 0.67546318055115129, 0.35852192149222112, 0.041580662433290935, -0.28513861425471398,
      -0.61185789094271892},
  UPN = {0.29552020666133955, 0.29552020666133955, 0.8414709848078965, 0.99166481045246857,
      0.29552020666133955, 0.29552020666133955, 0.8414709848078965, 0.99166481045246857, 0.67546318055115129,
      0.67546318055115129, 0.041580662433290935, -0.61185789094271892},
  ELU_ = {0.59104041332267909, 1.682941969615793, 1.9833296209049371, 1.3509263611023026,
      0.083161324866581871},
  CELU_ = {0.59104041332267909, 1.682941969615793, 1.9833296209049371, 1.3509263611023026,
      0.083161324866581871},
  SELU_ = {0.62100674584513016, 1.7682687891372908, 2.083886390936188, 1.4194196614547356,
      0.087377686147107433},
  LRELU_ = {0.59104041332267909, 1.682941969615793, 1.9833296209049371, 1.3509263611023026,
      0.083161324866581871},
  HT_ = {0.59104041332267909, 0.80000000000000004, 0.80000000000000004, 0.80000000000000004,
      0.083161324866581871},
  TH_ = {0.59104041332267909, 1.682941969615793, 1.9833296209049371, 1.3509263611023026, 7},
  RRELU_ = {0.59104041332267909, 1.682941969615793, 1.9833296209049371, 1.3509263611023026,
      0.083161324866581871},
  FRAC2 = {0.99166481045246857, 0.99166481045246857, 0.024775425453357765, 0.8504366206285644,
      0.9893582466233819, 0.65028784015711683, -0.34248061846961253, 0.8676441006416673, 0.98390669461861668,
      0.6111551462626017, -0.31069728509437561, 0.97734251239226011, 0.97364545569497973, -0.076036736058346488,
      0.40566187655532937, 0.96542663712974364, 0.96090719894562249, -0.10951945285369415, 0.91330733151216181,
      0.96090719894562249, 0.54252979902696952, -0.21338492349670654, 0.95105465325437899, 0.95105465325437899,
      0.49948278228916382, -0.18041562446232279, 0.94428181136612066, 0.93426312403469058, -0.19260194018330173,
      0.94428181136612066, 0.95481452517966225, 0.92174542490673472, -0.13059085494173628, 0.95967667947620594,
      0.96426750704042397, 0.42496949221962288, -0.080433853730793828, 0.96858570992034099, 0.97263006724240464,
      0.37878591322501931, -0.046874268443055249, 0.97989274916003344, 0.98310902039763415, 0.34745413908620015,
      0.63401794523629496, 0.98604733994198845, 0.86141039282370857, 0.0035526202168914816},
  FRAC2I = {3, 3, 14, 11, 12, 22, 27, 29, 30, 49, 45, 48, 1, 12, 8, 19, 28, 30, 27, 28, 38, 43, 46, 46, 9,
      5, 16, 17, 19, 16, 34, 35, 32, 43, 52, 54, 3, 5, 14, 25, 21, 32, 41, 43, 40, 50, 51, 48},
  FRAC3 = {0.97384763087819515, 0.9698898108450863, 0.9513287387867827, 0.94601258262690813,
      0.51474011692383814, 0.9698898108450863, 0.96565777654927798, 0.96565777654927798, 0.94042896294700595,
      0.50025201667858699, 0.96565777654927798, 0.96565777654927798, 0.96115272450211653, 0.95637592840450303,
      0.94940386068670113, 0.92846572276537864, 0.92208948459745221, 0.92615002068052588, 0.9513287387867827,
      0.9545501863215905, 0.95942663462337963, 0.91545254662081066, 0.93236054886618902, 0.94601258262690813,
      0.95942663462337963, 0.96403182688733235, 0.90855678527856509, 0.4948853175526281, 0.50942593711042927,
      0.94398911272511932, 0.96836446110018182, 0.96836446110018182, 0.97242331230824475, 0.98857338586443366,
      0.99096817122544922, 0.99096817122544922, 0.60695253079814582, 0.97620723296375211, 0.99096817122544922,
      0.99096817122544922, 0.99308278289725505, 0.62022937688262003, 0.97971515324928016, 0.98294608138023565,
      0.9858991038852476, 0.99491662302154527, 0.99646917312177141, 0.81622981609164247, 0.99999999988641475,
      0.9998583828477674, 0.75389235203959792, 0.99773999424974436, 0.99872872710971983, 0.9998583828477674,
      0.99943407861497569, 0.74273908074555961, 0.99872872710971983, 0.99943509215999127, 0.99943509215999127,
      0.99872720715040253, 0.99773796830585915, 0.71980577316585403, 0.75391215647574705, 0.9998588896919246,
      0.64623029355426442, 0.99646664176611033, 0.99646664176611033, 0.99491358696978671, 0.98294053756810662,
      0.63330753879730151, 0.82584527968913823, 0.99491358696978671, 0.99307924300777584, 0.97970911202177402,
      0.97970911202177402, 0.83520983948923888, 0.84433826272232038, 0.99096412849907445, 0.98856884144414847,
      0.97620069602887038, 0.97241628151418447, 0.96835693843472415, 0.57986327608532207, 0.98589405905588756,
      0.98294053756810662, 0.96835693843472415, 0.96402381447733909, 0.56608278770604414, 0.98294053756810662,
      0.97970911202177402, 0.97970911202177402, 0.95941813473417681, 0.9545412013563449, 0.53804561125555084,
      0.88635037750203238, 0.97620069602887038},
  FRAC3I = {2, 11, 47, 56, 57, 11, 20, 20, 65, 66, 20, 20, 29, 38, 82, 83, 92, 46, 47, 91, 100, 101, 55, 56,
      100, 109, 110, 63, 72, 73, 118, 118, 127, 172, 181, 181, 135, 136, 181, 181, 190, 144, 145, 154, 163, 199,
      208, 209, 43, 52, 53, 7, 16, 52, 61, 62, 16, 25, 25, 70, 79, 80, 33, 34, 134, 88, 88, 97, 142, 143, 96,
      97, 106, 151, 151, 105, 114, 115, 124, 160, 169, 178, 179, 133, 142, 178, 187, 188, 142, 151, 151, 196,
      205, 206, 159, 160},
  FRAC2R = {0.8414709848078965, 0.99166481045246857, 0.66296923008218334, -0.62507064889288211,
      -0.65096230566624691, 0.34331492881989539, 0.98390669461861668, 0.98076324774515289, 0.6111551462626017,
      -0.67611783538776427, 0.37470026364945874, 0.97734251239226011, 0.97364545569497973, 0.58419658441329136,
      -0.70050879145496414, 0.40566187655532937, 0.90633040797266073, 0.96542663712974364, 0.55657739612579948,
      -0.72410759186744467, -0.74688755041737642, 0.46617440618717204, 0.95105465325437899,
      0.94572433133023504},
}

function tests.inplaceActivations()
  local xi = X({ 5 }):mul(2)
  local cases = {
    { 'elu_', { 0.5 }, PT.ELU_ }, { 'celu_', { 0.7 }, PT.CELU_ }, { 'selu_', {}, PT.SELU_ },
    { 'leakyRelu_', { 0.2 }, PT.LRELU_ }, { 'hardtanh_', { -0.5, 0.8 }, PT.HT_ }, { 'threshold_', { 0.1, 7 }, PT.TH_ },
    { 'rrelu_', { 0.1, 0.3 }, PT.RRELU_ },
  }
  for _, c in ipairs(cases) do
    local x = xi:clone()
    local r = F[c[1]](x, unpack(c[2]))
    tester:assert(r == x, c[1] .. ' returns its argument')
    near(x, c[3], 1e-12, c[1])
  end
  local x = xi:clone()
  F.relu_(x)
  near(x, torch.clamp(xi, 0, math.huge):totable(), 0, 'relu_')
  -- through autograd: the gradient of relu_(a * 2) reaches a
  local a = X({ 6 }, 1.1):requiresGrad()
  local y = torch.mul(a, 2)
  F.relu_(y)
  y:sum():backward()
  near(a.grad, torch.gt(a:detach(), 0):double():mul(2):totable(), 0, 'relu_ gradient')
  -- every one on a tensor with history: elu_, selu_ and hardtanh_ failed at backward (their clamp
  -- had saved the tensor the copy then changed)
  for _, c in ipairs(cases) do
    gradcheck(function(t)
      local v = torch.mul(t, 2)
      F[c[1]](v, unpack(c[2]))
      return v
    end, { X({ 5 }, 0.3):mul(1.7):add(0.05):requiresGrad() }, c[1] .. ' gradient')
  end
  raises(function() F.relu_(X({ 3 }):requiresGrad()) end, 'leaf', 'in-place on a leaf')
  raises(function() F.elu_(torch.LongTensor({ 1 })) end, 'nn.functional.elu_', 'integer input')
end

-- PyTorch 1.13 max_pool3d(X({1, 2, 5, 6, 7}), (2,3,2), (1,2,2), (1,1,0), (2,1,2), ceil_mode=True) indices + 1
local MP3_IDX = {50, 47, 56, 57, 66, 56, 66, 66, 75, 78, 82, 84, 3, 3, 12, 101, 12, 12, 120, 110, 119, 120,
    38, 40, 129, 129, 138, 57, 66, 138, 66, 66, 75, 164, 164, 84, 92, 173, 182, 101, 110, 182, 120, 110, 119,
    120, 208, 210, 129, 129, 138, 136, 138, 138, 164, 164, 154, 164, 164, 166, 45, 45, 54, 52, 54, 54, 80, 80,
    70, 80, 80, 82, 8, 89, 98, 17, 26, 98, 36, 26, 35, 36, 124, 124, 134, 45, 54, 134, 143, 152, 80, 80, 152,
    80, 80, 168, 178, 89, 98, 178, 187, 98, 197, 206, 196, 206, 206, 124, 134, 136, 133, 134, 143, 152, 162,
    152, 152, 162, 164, 168}

function tests.poolsWithIndices()
  local x = X({ 1, 2, 8 })
  local v, i = F.maxPool1dWithIndices(x, 3, 2, 1)
  local v2, i2 = F.maxPool1d(x, 3, 2, 1, 1, false, true)
  tester:assertTensorEq(v, v2, 0, 'maxPool1dWithIndices')
  tester:assert(i:equal(i2), 'maxPool1dWithIndices indices')
  local x2 = X({ 1, 2, 5, 6 })
  v, i = F.maxPool2dWithIndices(x2, 2, 1, 0, 2)
  v2, i2 = F.maxPool2d(x2, 2, 1, 0, 2, false, true)
  tester:assertTensorEq(v, v2, 0, 'maxPool2dWithIndices')
  tester:assert(i:equal(i2), 'maxPool2dWithIndices indices')
  v, i = F.adaptiveMaxPool2dWithIndices(x2, { 2, 3 })
  v2, i2 = F.adaptiveMaxPool2d(x2, { 2, 3 })
  tester:assert(v:equal(v2) and i:equal(i2), 'adaptiveMaxPool2dWithIndices')
  v, i = F.adaptiveMaxPool1dWithIndices(x, 3)
  v2, i2 = F.adaptiveMaxPool1d(x, 3, true)
  tester:assert(v:equal(v2) and i:equal(i2), 'adaptiveMaxPool1dWithIndices')
  local x3 = X({ 1, 2, 4, 4, 6 })
  v, i = F.adaptiveMaxPool3dWithIndices(x3, 2)
  v2, i2 = F.adaptiveMaxPool3d(x3, 2, true)
  tester:assert(v:equal(v2) and i:equal(i2), 'adaptiveMaxPool3dWithIndices')
  -- 3-D with indices in PyTorch's order: the values are the max at the 1-based flat positions
  v, i = F.maxPool3dWithIndices(x3, 2)
  local flat = x3:view(2, -1)
  near(v:view(2, -1), flat:gather(2, i:view(2, -1)):view(-1):totable(), 0, 'maxPool3dWithIndices picks the indices')
  near(v, F.maxPool3d(x3, 2):view(-1):totable(), 0, 'maxPool3dWithIndices values')
  -- dilation 2 (the dilated module): every value is the max of its dilated window
  local vd, id = F.maxPool3dWithIndices(x3, 2, 1, 0, 2)
  tester:assertTableEq(vd:size():totable(), { 1, 2, 2, 2, 4 }, 'dilated size')
  near(vd:view(2, -1), flat:gather(2, id:view(2, -1)):view(-1):totable(), 0, 'dilated indices')
  tester:assertalmosteq(vd[1][1][1][1][1], math.max(x3[1][1][1][1][1], x3[1][1][1][1][3], x3[1][1][1][3][1],
    x3[1][1][1][3][3], x3[1][1][3][1][1], x3[1][1][3][1][3], x3[1][1][3][3][1], x3[1][1][3][3][3]), 0, 'dilated window')
  -- asymmetric kernel, stride, padding and dilation with ceilMode, against PyTorch's indices
  local xa = X({ 1, 2, 5, 6, 7 })
  local va, ia = F.maxPool3dWithIndices(xa, { 2, 3, 2 }, { 1, 2, 2 }, { 1, 1, 0 }, { 2, 1, 2 }, true)
  tester:assertTableEq(va:size():totable(), { 1, 2, 5, 4, 3 }, 'dilated ceil size')
  near(ia, MP3_IDX, 0, 'dilated ceil indices')
  near(va:view(2, -1), xa:view(2, -1):gather(2, ia:view(2, -1)):view(-1):totable(), 0, 'dilated ceil values')
  raises(function() F.maxPool3dWithIndices(x3, 2, 1, 0, 1, 'yes') end, 'ceilMode', 'ceilMode type')
end

function tests.maxUnpool()
  local xp = X({ 1, 2, 8 })
  local yp, ip = F.maxPool1dWithIndices(xp, 3, 2, 1)
  near(F.maxUnpool1d(yp, ip, 3, 2, 1), PT.UNP1, 1e-15, 'maxUnpool1d')
  near(F.maxUnpool1d(yp, ip, 3, 2, 1, { 8 }), PT.UNP1_OS, 1e-15, 'maxUnpool1d outputSize')
  raises(function() F.maxUnpool1d(yp, ip, 3, 2, 1, { 9 }) end, 'invalid outputSize', 'outputSize out of range')
  local x3 = X({ 1, 1, 4, 5, 4 })
  local y3, i3 = F.maxPool3dWithIndices(x3, 2)
  near(F.maxUnpool3d(y3, i3, 2, nil, 0, { 4, 5, 4 }), PT.UNP3_OS, 1e-15, 'maxUnpool3d outputSize')
  local x3b = X({ 1, 2, 4, 4, 6 })
  y3, i3 = F.maxPool3dWithIndices(x3b, 2)
  local u = F.maxUnpool3d(y3, i3, 2)
  tester:assertTableEq(u:size():totable(), { 1, 2, 4, 4, 6 }, 'maxUnpool3d size')
  near(u, PT.UNP3, 1e-15, 'maxUnpool3d')
  -- non-overlapping windows (overlapping ones may pick one position twice: the scatter keeps one)
  local yq, iq = F.maxPool1dWithIndices(xp, 2)
  gradcheck(function(t) return F.maxUnpool1d(t, iq, 2) end, { yq:clone():requiresGrad() }, 'maxUnpool1d')
  raises(function() F.maxUnpool1d(yp, ip:double(), 3) end, 'LongTensor', 'float indices')
  raises(function() F.maxUnpool1d(yp, ip:narrow(3, 1, 2), 3) end, 'differ', 'indices size')
  raises(function() F.maxUnpool1d(yp, ip:clone():fill(99), 3, 2, 1) end, 'outside', 'indices out of range')
end

function tests.bilinear()
  local x1, x2 = X({ 2, 3, 3 }):requiresGrad(), X({ 2, 3, 4 }, 1.0):requiresGrad()
  local w, b = X({ 2, 3, 4 }, 2.0):requiresGrad(), X({ 2 }, 0.5):requiresGrad()
  local y = F.bilinear(x1, x2, w, b)
  tester:assertTableEq(y:size():totable(), { 2, 3, 2 }, 'bilinear size')
  near(y, PT.BIL, 1e-12, 'bilinear')
  torch.pow(y, 2):sum():backward()
  near(w.grad, PT.BIL_GW, 1e-11, 'bilinear weight gradient')
  near(x1.grad, PT.BIL_GX1, 1e-11, 'bilinear input1 gradient')
  -- against nn.Bilinear's formula: one output is x1^T W_o x2 + b_o
  local o = torch.dot(x1:detach()[1][2], torch.mv(w:detach()[2], x2:detach()[1][2])) + b:detach()[2]
  tester:assertalmosteq(y:detach()[1][2][2], o, 1e-12, 'bilinear one output')
  gradcheck(function(a, c, ww, bb) return F.bilinear(a, c, ww, bb) end,
    { X({ 2, 3 }):requiresGrad(), X({ 2, 2 }, 1):requiresGrad(), X({ 2, 3, 2 }, 2):requiresGrad(), X({ 2 }, 3):requiresGrad() }, 'bilinear')
  raises(function() F.bilinear(X({ 2, 3 }), X({ 2, 4 }), X({ 2, 3, 5 })) end, 'do not match', 'sizes')
  raises(function() F.bilinear(X({ 2, 3 }), X({ 3, 4 }), X({ 2, 3, 4 })) end, 'leading dims', 'batch sizes')
end

function tests.convTbc()
  local x, w, b = X({ 6, 2, 3 }), X({ 3, 3, 4 }, 0.9), X({ 4 }, 0.2)
  local y = F.convTbc(x, w, b, 1)
  tester:assertTableEq(y:size():totable(), { 6, 2, 4 }, 'convTbc size')
  near(y, PT.TBC, 1e-12, 'convTbc')
  gradcheck(function(a, ww, bb) return F.convTbc(a, ww, bb, 1) end,
    { X({ 4, 2, 2 }):requiresGrad(), X({ 2, 2, 3 }, 1):requiresGrad(), X({ 3 }, 2):requiresGrad() }, 'convTbc')
  raises(function() F.convTbc(x, X({ 3, 2, 4 }), b) end, 'expected input T x B x Cin', 'channels')
  raises(function() F.convTbc(x, w, b, -1) end, 'pad', 'negative pad')
end

function tests.multilabelMarginLoss()
  local x = X({ 3, 5 })
  local t = torch.LongTensor({ { 4, 1, 0, 2, 3 }, { 5, 0, 1, 1, 1 }, { 2, 2, 3, 0, 4 } })  -- PyTorch's +1, -1 -> 0
  near(F.multilabelMarginLoss(x, t, 'none'), PT.MLM_NONE, 1e-12, 'none')
  tester:assertalmosteq(F.multilabelMarginLoss(x, t), PT.MLM_MEAN, 1e-12, 'mean')
  tester:assertalmosteq(F.multilabelMarginLoss(x, t, { reduction = 'sum' }), PT.MLM_MEAN * 3, 1e-12, 'sum')
  tester:assertalmosteq(F.multilabelMarginLoss(x[1], t[1]), PT.MLM_VEC, 1e-12, 'one sample')
  -- one sample with 'none': a 0-dim loss, as PyTorch's (it was a 1-element vector)
  local l1 = F.multilabelMarginLoss(x[1], t[1], 'none')
  tester:asserteq(l1:dim(), 0, 'one sample, none: 0-dim')
  tester:assertalmosteq(l1:item(), PT.MLM_VEC, 1e-12, 'one sample, none')
  -- the criterion computes the same
  tester:assertalmosteq(nn.MultiLabelMarginCriterion():forward(x, t), PT.MLM_MEAN, 1e-12, 'nn.MultiLabelMarginCriterion')
  local xg = x:clone():requiresGrad()
  F.multilabelMarginLoss(xg, t):backward()
  near(xg.grad, PT.MLM_G, 1e-12, 'gradient')
  gradcheck(function(a) return F.multilabelMarginLoss(a, t, 'none') end, { X({ 3, 5 }, 0.05):mul(0.3):requiresGrad() }, 'gradcheck')
  raises(function() F.multilabelMarginLoss(x, t:narrow(2, 1, 4)) end, 'target of its size', 'size')
  raises(function() F.multilabelMarginLoss(x, t:clone():fill(6)) end, 'target classes', 'range')
  raises(function() F.multilabelMarginLoss(x, t, 'avg') end, 'reduction', 'reduction')
end

function tests.embeddingOptions()
  local W = X({ 5, 3 }, 0.1):mul(3)
  local idx = torch.LongTensor({ { 1, 3 }, { 3, 5 } })
  local W1 = W:clone()
  near(F.embedding(idx, W1, nil, 1.5), PT.EMB_MN, 1e-12, 'maxNorm output')
  near(W1, PT.EMB_MN_W, 1e-12, 'maxNorm renormalizes the weight in place')
  local W2 = W:clone()
  F.embedding(idx, W2, { maxNorm = 2, normType = 1 })
  near(W2, PT.EMB_MN1_W, 1e-12, 'maxNorm with normType 1')
  local W3 = W:clone():requiresGrad()
  local e = F.embedding(idx, W3, { scaleGradByFreq = true, paddingIdx = 5 })
  near(e, F.embedding(idx, W):view(-1):totable(), 0, 'scaleGradByFreq keeps the values')
  torch.cmul(e, X({ 2, 2, 3 }, 0.4)):sum():backward()
  near(W3.grad, PT.EMB_SG, 1e-12, 'scaleGradByFreq gradient with a padding row')
  -- plain calls are the old lookup
  near(F.embedding(idx, W, 2), F._embeddingLookup(idx, W, 2):view(-1):totable(), 0, 'positional paddingIdx')
  -- sparse = true: tests/lua/test_sparse_grad.lua
  raises(function() F.embedding(idx, W, { maxNorm = -1 }) end, 'maxNorm', 'negative maxNorm')
  raises(function() F.embedding(idx, W, { maxnorm = 1 }) end, 'unknown option', 'unknown option')
  raises(function() F.embedding(torch.LongTensor({ 7 }), W:clone(), nil, 1) end, 'out of range', 'index range with maxNorm')
end

-- PyTorch 1.13's embedding_bag with include_last_offset and max_norm (float64); the gradients under
-- scale_grad_by_freq are 1.13's unscaled ones divided by each index's count: its CPU backward divides
-- by another index's count (pytorch issue 190063), its CUDA backward as here.
local BAG = {
  bagLast = {-1.4381868681290011, -0.84836783177777042, 0.14045185197158427, 0.14733356629783534,
      -0.60453628788256075, -1.0720832797317219, 0.14360691632180245, -0.62791695131681413,
      -1.1041216652781198},
  bagLastW = {0.18547201699474994, 0.73129164583910311, 0.93317338689815643, 0.96678431949099275,
      0.18295783471926408, -0.68691657851596111, -0.8118294425618755, -0.78982973880843677,
      -0.39636076746328608, 0.53779997021953885, 1.9841696596228828, 2.4973533545994302, 0.95543635888367795,
      0.16191278749162269, -0.70776089781483376, -0.81945075319315741, -0.78749412260182483,
      -0.38516670121576091},
  bagFreqMean = {-1.4204456808199752, -0.89025204585665152, 0.058641036844992112, -0.2636622551168345,
      -0.9727606470060115, -1.2243545068038706, -0.27150622001925151, -1.0017003235258364, -1.260779112878907},
  bagFreqGrad = {0.18821415779834511, 0.32118606180573095, 0.30309914227522722, 0.21368994011691508,
      -0.12777055101341561, -0.40913855553220513, -0.040551329607076726, 0.096533986942088548,
      0.18821786104723526, 0, 0, 0, -0.4980823044179204, -0.35277016278519624, -0.041544701408748642,
      0.21368994011691508, -0.12777055101341561, -0.40913855553220513},
  bagPswLast = {-1.4279879828672033, 0.082117059900284728, 1.5536011662822147, 1.0624625195854165,
      2.3595448833317878, 2.5468964195413992},
  bagPswGrad = {0.56322803643526098, 0.96114445925494985, 0.90701962459058461, -0.39155088832229684,
      0.23411805311639985, 0.74967761597896321, 0.049645605730112029, 0.32097995214730241, 0.44135241161951427,
      0, 0, 0, 0, 0, 0, -0.18912433405637533, 0.11308216174896837, 0.36210434992625373},
}

function tests.embeddingBagOptions()
  local W = X({ 6, 3 }, 0.2):mul(2.5)
  local idx = torch.LongTensor({ 1, 3, 3, 6, 2, 3, 5 })  -- PyTorch's + 1
  local W1 = W:clone()
  local y = F.embeddingBag(idx, W1, torch.LongTensor({ 1, 4, 6, 8 }), { mode = 'sum', includeLastOffset = true, maxNorm = 1.2 })
  near(y, BAG.bagLast, 1e-12, 'includeLastOffset with maxNorm')
  near(W1, BAG.bagLastW, 1e-12, 'maxNorm renormalizes the weight')
  local W2 = W:clone():requiresGrad()
  y = F.embeddingBag(idx, W2, torch.LongTensor({ 1, 4, 6 }), { mode = 'mean', scaleGradByFreq = true })
  near(y, BAG.bagFreqMean, 1e-12, 'scaleGradByFreq values')
  torch.cmul(y, X({ 3, 3 }, 0.6)):sum():backward()
  near(W2.grad, BAG.bagFreqGrad, 1e-12, 'scaleGradByFreq gradient')
  local W3 = W:clone():requiresGrad()
  y = F.embeddingBag(idx:narrow(1, 1, 6), W3, torch.LongTensor({ 1, 3, 7 }), { mode = 'sum', perSampleWeights = X({ 6 }, 1.5),
    includeLastOffset = true, scaleGradByFreq = true })
  near(y, BAG.bagPswLast, 1e-12, 'perSampleWeights with includeLastOffset')
  torch.cmul(y, X({ 2, 3 }, 0.6)):sum():backward()
  near(W3.grad, BAG.bagPswGrad, 1e-12, 'perSampleWeights gradient')
  -- without the new options: the older function
  near(F.embeddingBag(idx, W, torch.LongTensor({ 1, 4 }), { mode = 'max' }),
    F._embeddingBagBase(idx, W, torch.LongTensor({ 1, 4 }), { mode = 'max' }):view(-1):totable(), 0, 'plain call')
  raises(function() F.embeddingBag(idx, W, torch.LongTensor({ 1, 4 }), { mode = 'max', scaleGradByFreq = true }) end,
    "mode 'max'", 'max with scaleGradByFreq')
  raises(function() F.embeddingBag(idx, W, torch.LongTensor({ 1, 9 }), { includeLastOffset = true }) end, 'the end', 'last offset')
  raises(function() F.embeddingBag(idx:view(1, 7), W, { includeLastOffset = true }) end, '1-D indices', '2-D with last offset')
end

function tests.fractionalMaxPool()
  local x = X({ 2, 2, 7, 8 })
  local s = D({ 0.1, 0.7, 0.35, 0.9, 0.5, 0.05, 0.99, 0.42 }):view(2, 2, 2)
  local y, i = F.fractionalMaxPool2d(x, { 2, 3 }, { 4, 3 }, nil, true, s)
  near(y, PT.FRAC2, 1e-15, 'fractionalMaxPool2d')
  near(i, PT.FRAC2I, 0, 'fractionalMaxPool2d indices')
  local y2, i2 = F.fractionalMaxPool2dWithIndices(x, { 2, 3 }, { 4, 3 }, nil, s)
  tester:assert(y2:equal(y) and i2:equal(i), 'WithIndices form')
  local x3 = X({ 1, 2, 5, 6, 7 }, 1.1)
  local s3 = D({ 0.2, 0.8, 0.45, 0.6, 0.15, 0.33 }):view(1, 2, 3)
  y, i = F.fractionalMaxPool3d(x3, 2, { 3, 4, 4 }, nil, true, s3)
  near(y, PT.FRAC3, 1e-15, 'fractionalMaxPool3d')
  near(i, PT.FRAC3I, 0, 'fractionalMaxPool3d indices')
  y = F.fractionalMaxPool2d(x[1], 2, nil, 0.5, false, s:narrow(1, 1, 1))
  tester:assertTableEq(y:size():totable(), { 2, 3, 4 }, 'outputRatio size, unbatched')
  near(y, PT.FRAC2R, 1e-15, 'outputRatio')
  -- random samples: every output is the max of a kernel-sized window
  local r, ri = F.fractionalMaxPool2d(X({ 1, 1, 9, 9 }), 3, 4, nil, true)
  near(r:view(-1), X({ 1, 1, 9, 9 }):view(-1):index(1, ri:view(-1)):totable(), 0, 'random windows: values at the indices')
  gradcheck(function(t) return F.fractionalMaxPool2d(t, 2, 3, nil, false, s:narrow(1, 1, 1)) end,
    { X({ 1, 2, 6, 5 }):requiresGrad() }, 'gradcheck 2-D')
  raises(function() F.fractionalMaxPool2d(x, 2) end, 'exactly one of outputSize and outputRatio', 'no size')
  raises(function() F.fractionalMaxPool2d(x, 3, 7) end, 'too large', 'too large')
  raises(function() F.fractionalMaxPool2d(x, 2, nil, 1.5) end, 'outputRatio', 'ratio range')
  raises(function() F.fractionalMaxPool2d(x, 2, 3, nil, false, s:narrow(1, 1, 1)) end, 'randomSamples', 'samples size')
end

function tests.aliases()
  tester:assert(F.nativeChannelShuffle == F.channelShuffle, 'nativeChannelShuffle')
  local x = X({ 1, 1, 2, 3 })
  near(F.upsampleBilinear(x, { 3, 5 }), PT.UPB, 1e-12, 'upsampleBilinear uses alignCorners')
  near(F.upsampleNearest(x, nil, 1.5), PT.UPN, 1e-15, 'upsampleNearest')
  near(F.upsample(x, { 4, 6 }), F.interpolate(x, { size = { 4, 6 } }):view(-1):totable(), 0, 'upsample positional')
  near(F.upsample(x, { size = { 4, 6 }, mode = 'bilinear' }),
    F.interpolate(x, { size = { 4, 6 }, mode = 'bilinear' }):view(-1):totable(), 0, 'upsample with options')
end

-- The functions on CUDA against the CPU (run where a GPU exists).
function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local function same(a, b, what) tester:assertTensorEq(b:double(), a, 1e-10, what) end
  local x1, x2, w = X({ 2, 3, 3 }), X({ 2, 3, 4 }, 1), X({ 2, 3, 4 }, 2)
  same(F.bilinear(x1, x2, w), F.bilinear(x1:cuda(), x2:cuda(), w:cuda()), 'bilinear')
  local xt, wt, bt = X({ 6, 2, 3 }), X({ 3, 3, 4 }, 0.9), X({ 4 }, 0.2)
  same(F.convTbc(xt, wt, bt, 1), F.convTbc(xt:cuda(), wt:cuda(), bt:cuda(), 1), 'convTbc')
  local xm, tm = X({ 3, 5 }), torch.LongTensor({ { 4, 1, 0, 2, 3 }, { 5, 0, 1, 1, 1 }, { 2, 2, 3, 0, 4 } })
  same(F.multilabelMarginLoss(xm, tm, 'none'), F.multilabelMarginLoss(xm:cuda(), tm:cuda(), 'none'), 'multilabelMarginLoss')
  local xf = X({ 2, 2, 7, 8 })
  local s = D({ 0.1, 0.7, 0.35, 0.9, 0.5, 0.05, 0.99, 0.42 }):view(2, 2, 2)
  local y, i = F.fractionalMaxPool2d(xf, { 2, 3 }, { 4, 3 }, nil, true, s)
  local yc, ic = F.fractionalMaxPool2d(xf:cuda(), { 2, 3 }, { 4, 3 }, nil, true, s:cuda())
  same(y, yc, 'fractionalMaxPool2d')
  tester:assert(ic:long():equal(i), 'fractionalMaxPool2d indices')
  local xp = X({ 1, 2, 8 })
  local yp, ip = F.maxPool1dWithIndices(xp, 3, 2, 1)
  same(F.maxUnpool1d(yp, ip, 3, 2, 1), F.maxUnpool1d(yp:cuda(), ip:cuda(), 3, 2, 1), 'maxUnpool1d')
  local W, idx = X({ 5, 3 }, 0.1):mul(3), torch.LongTensor({ { 1, 3 }, { 3, 5 } })
  local Wc = W:cuda()
  same(F.embedding(idx, W:clone(), { maxNorm = 1.5 }), F.embedding(idx:cuda(), Wc, { maxNorm = 1.5 }), 'embedding maxNorm')
  local xr = X({ 7 })
  same(F.elu_(xr:clone(), 0.5), F.elu_(xr:cuda(), 0.5), 'elu_')
  local bi, bo = torch.LongTensor({ 1, 3, 3, 6, 2, 3, 5 }), torch.LongTensor({ 1, 4, 6, 8 })
  local bw = X({ 6, 3 }, 0.2)
  same(F.embeddingBag(bi, bw, bo, { mode = 'sum', includeLastOffset = true, maxNorm = 1.2 }),
    F.embeddingBag(bi:cuda(), bw:cuda(), bo:cuda(), { mode = 'sum', includeLastOffset = true, maxNorm = 1.2 }), 'embeddingBag')
end

function tests.maxPool3dTakesPyTorchsOrder()
  local F = nn.functional
  local x = torch.range(0, 124):view(1, 1, 5, 5, 5)
  -- PyTorch 1.13: F.max_pool3d(x, 2, 2, 0, 1) is 1x1x2x2x2; with dilation 2 the maxima below
  tester:assertTableEq(F.maxPool3d(x, 2, 2, 0, 1):size():totable(), { 1, 1, 2, 2, 2 })
  tester:assertTensorEq(F.maxPool3d(x, 2, 2, 0, 2):view(-1), torch.Tensor({ 62, 64, 72, 74, 112, 114, 122, 124 }), 0)
  tester:assertTableEq(F.maxPool3d(x, 2, 2, 0, 1, true):size():totable(), { 1, 1, 3, 3, 3 })
  tester:assertTableEq(F.maxPool3d(x, 2, 2, 0, true):size():totable(), { 1, 1, 3, 3, 3 }, 'a boolean 5th is ceilMode')
end

tester:add(tests)
tester:run()
