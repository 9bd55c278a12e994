-- PyTorch 1.13's module classes that Tocha's nn lacked (lua/nn/pytorch_more_modules.lua,
-- MaxUnpool.lua, FractionalMaxPool.lua, pytorch_lazy_norm_transpose.lua, ParameterList.lua,
-- ParameterDict.lua): values and input gradients against PyTorch 1.13's (pasted below; float64,
-- inputs X = 2 sin(0.7 i + 0.3) and gradOutputs cos(0.3 i) reshaped), through Torch7's
-- forward/backward and through the call form m(x) with autograd; gradchecks; Monte-Carlo moments of
-- the random modules (seeded); lazy modules against their eager parents; the parameter containers
-- (parameters, state-dict names, conversion, optimizers, save/load); errors naming the class.
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- PyTorch 1.13's values (float64): y = m(X) (flattened, with its size) and gx = the gradient of
-- sum(y * cos(0.3 i)) with respect to the input. unpool*: MaxUnpoolNd(MaxPoolNd(X)) with gx the
-- gradient with respect to the pooled values; nll2d_*: NLLLoss2d(log_softmax(X(2,3,2,2), 1), t);
-- frac*: FractionalMaxPoolNd with the given _random_samples; frac2idx: its indices + 1. cmlrn3 is
-- nn.LocalResponseNorm's (Note [CrossMapLRN2d's window], lua/nn/pytorch_more_modules.lua).
local R = {
hardshrink = {y = {0.59104041332267909, 1.682941969615793, 1.9833296209049371, 1.3509263611023026, 0, -1.2237157818854378, -1.9550602353301938, -1.7669093114403072, -0.7477533296604737, 0.62308272702675571}, size = {2, 5}, gx = {1, 0.95533648912560598, 0.82533561490967833, 0.6216099682706645, 0, 0.070737201667702906, -0.22720209469308689, -0.50484610459985757, -0.73739371554124544, -0.90407214201706099}},
softshrink = {y = {0.2910404133226791, 1.382941969615793, 1.6833296209049371, 1.0509263611023025, 0, -0.92371578188543779, -1.6550602353301938, -1.4669093114403071, -0.44775332966047371, 0.32308272702675572}, size = {2, 5}, gx = {1, 0.95533648912560598, 0.82533561490967833, 0.6216099682706645, 0, 0.070737201667702906, -0.22720209469308689, -0.50484610459985757, -0.73739371554124544, -0.90407214201706099}},
lrn3 = {y = {0.37073575447485385, 1.0108589257870806, 1.0269144965766261, 0.67959581627947885, 0.041909308495646558, -0.61579785703381773, -0.98160167357899653, -0.88773847429193409, -0.37662865426665332, 0.31388686668243598, 0.85475069805438297, 0.99338925018523028, 0.83327326542257452, 0.029657161372081367, -0.64570958926186861, -1.0812773970415983, -0.87985322745259598, -0.39199175819056015, 0.32992678425445915, 0.86347003554847157, 0.99081210869378544, 0.65435154931768169, 0.0080261755676590777, -0.64213354598781769, -0.98811455234193957, -0.87150365090311599, -0.34503179907274945, 0.37700514671419277, 0.87195880821076044, 1.0806742298388259}, size = {2, 5, 3}, gx = {0.57287195608449104, 0.3653469909569399, 0.26125758201845789, 0.15833664896330191, 0.16858757733364799, 0.17211633516572153, -0.043562332803085732, -0.32122633803626, -0.42703325769083039, -0.38892724154239966, -0.42524644921894039, -0.42208435131624222, -0.39251800430257977, -0.43016215789053625, -0.33455122840252283, -0.024496845737364367, 0.15654671779004872, 0.26291800617384181, 0.24624803397079575, 0.30765281352245949, 0.43089610973325299, 0.46862853303859975, 0.47819648952610583, 0.46228931495298026, 0.29591246871047966, 0.044744586362741867, -0.072300273822197753, -0.085460937532338271, -0.1301098926100514, -0.22847144752946544}},
lrn4 = {y = {0.35737694677686344, 0.98386291120536196, 1.191803630823681, 0.84964498848883141, 0.051570843020707628, -0.72261591993348928, -1.1434623016939431, -1.0329043238146214, -0.4363306205420085, 0.36353861779589774, 0.99413927623715881, 1.1573746934921392, 0.76944633547902397, 0.027499192465261741, -0.68188601633600232, -1.1105673679519441, -1.0233770644999518, -0.40698171760872243, 0.3576362561048253, 0.95079926471300469, 1.1426117287345987, 0.75416013165381279, 0.0088295972400743508, -0.69634451915361772, -1.1483416903127339, -1.0137807037107731, -0.40063611698294188, 0.40098499100690849, 1.0121789868685296, 1.1491323044436204}, size = {1, 5, 2, 3}, gx = {0.60560380444835427, 0.46916138350685066, 0.3756910056717444, 0.36655951534876485, 0.22792950707207546, -0.018662113103624131, -0.12144485441446684, -0.1542624069109011, -0.35525060738669723, -0.55578343917273398, -0.51324999354604395, -0.44301491683158539, -0.47574689723133035, -0.40446666941274656, -0.1903153925787951, -0.080305221015388201, -0.051225066939371226, 0.14472000672858457, 0.37489184247526669, 0.43946174870469484, 0.45748263018634355, 0.53824380607666711, 0.52716481496073708, 0.37411832782499282, 0.31920739376664692, 0.22639969945237501, 0.058213972370366962, -0.15855446908131268, -0.26996054183340734, -0.33837005089762084}},
lrn5 = {y = {0.59103267091273048, 1.682763244790987, 1.9830371105605198, 1.3508339143577421, 0.083161303299303921, -1.2236470680011606, -1.9547800540743565, -1.7667024808688496, -0.74772785666638653, 0.62300748810376205, 1.7004379541194448, 1.9782906576459218, 1.325850704966594, 0.049548063973898285, -1.2498889015065933, -1.9613597649760859, -1.7506663866146093, -0.71643434344371959, 0.65486730164756002, 1.7178812112910562, 1.9731256662040391, 1.3004930696885872, 0.015925434087639401, -1.2759512774487731}, size = {1, 3, 2, 2, 2}, gx = {0.99993626148592707, 0.95510323175205325, 0.82522080714305801, 0.62168023384838178, 0.36236488760806207, 0.070721985219783984, -0.22701459782375821, -0.50461406208887427, -0.73734626430932582, -0.90392400197952638, -0.98957747725425749, -0.98719015821068767, -0.89676918852067455, -0.72589617322794253, -0.49010298340605546, -0.21083300436330837, 0.08746697976457328, 0.3779504141543647, 0.63459340897309691, 0.83431313634043058, 0.959686451187859, 0.99966830130545314, 0.95017687837532294, 0.81545798384034163}},
cmlrn3 = {y = {0.3277192708655039, 0.84841597209670216, 1.0800240563230177, 0.84517559257739161, 0.049759699382209983, -0.6342095027990472, -0.98681382194769263, -0.89063648000954088, -0.37505812113873838, 0.31242323516684822, 0.85697043517792193, 0.9989344394950439, 0.66660074790384505, 0.024827160932921429, -0.62825811278408739, -0.99030349188936739, -0.8824728327551441, -0.35932965100462649, 0.32842710549684601, 0.86586254608884916, 0.99628364392423319, 0.65376594353709483, 0.0079797786108802976, -0.64144202659918648, -1.0832218785843537, -0.8740731894915621, -0.3756867893327242, 0.43102420958531618, 1.0310689121712993, 1.0151931016997287, 0.80145665932072341, -0.010480884017377396, -0.6702207469889947, -1.0207065985924444, -1.0242454426801189, -0.40938344909805024, 0.3601629156658962, 0.88291030845355234, 0.99012625301351953, 0.62755687200344179, -0.025716898219629622, -0.66727357940770626, -0.99906649809361947, -0.85649400201569958, -0.31157551005323658, 0.37588610395531702, 0.89106069402772348, 0.98662163007738257, 0.61419022375963017, -0.04255710414380235, -0.67991368573335764, -1.001415711786342, -0.84734733248208538, -0.29548250233184675, 0.49190982775932396, 1.0480774431527016, 0.99844231835280484, 0.62118247639761404, -0.07117235996065456, -0.85966736142101885}, size = {2, 5, 2, 3}, gx = {0.5191064203382858, 0.26889731956859386, 0.19824805768299192, 0.33195392184002809, 0.22369987766124072, -0.09036112630807619, -0.11447167333262681, -0.034317006535932768, -0.25215306799899756, -0.49264783297904474, -0.34486227722994556, -0.26635571700400251, -0.42901897052368526, -0.36945973172487229, -0.0532966663397446, 0.0077015293404038981, -0.1170233079249787, 0.071400070445204744, 0.39246665539534814, 0.35139523182025312, 0.23876986915675946, 0.40872134978536745, 0.4772826091242095, 0.2256816127449234, 0.22943985558091817, 0.2476647373170105, 0.093879409155375598, -0.18804438896579759, -0.19383059103848235, -0.12865606821574199, -0.43857176706225792, -0.5872634841748654, -0.367319757486263, -0.19379688158897637, -0.27200481408978056, -0.32298134200332351, 0.050205777577137178, 0.1761955269182966, 0.037361554566668148, 0.12932546475230322, 0.42892724598355136, 0.43915286799203579, 0.26063842378027569, 0.35769914567391281, 0.44495034329229666, 0.18205217826584685, -0.030925444049820394, 0.080853830409195276, 0.083171459686963628, -0.28174512013550834, -0.40978680568936493, -0.25886460077445761, -0.31095990566321063, -0.50060581213112454, -0.49735217769782591, -0.25528430225147247, -0.24485037918019081, -0.18904382482240076, 0.082503353874553237, 0.23050295624673817}},
unpool1 = {y = {0, 1.682941969615793, 1.9833296209049371, 0, 0.083161324866581871, 0, 0, -1.7669093114403072, 0, 0.62308272702675571, 0, 1.9787164932467638, 1.3259384601643667, 0, -1.2501412977857642, 0, 0, -0.71645856447365741, 0, 1.7183236297129916, 1.9735439285492267, 0, 0.015926367571874687, 0}, size = {2, 2, 6}, gx = {0.95533648912560598, 0.82533561490967833, 0.36235775447667362, -0.50484610459985757, -0.90407214201706099, -0.98747976990886488, -0.89675841633414721, -0.49026082134069943, 0.37797774271298024, 0.83471278483915978, 0.96017028665036597, 0.9502325919585296}},
unpool2 = {y = {0, 1.682941969615793, 1.9833296209049371, 0, 0, 0, 0, 0, 0, 0, 0, 1.9787164932467638, 1.3259384601643667, 0, 0, 0, 0, 0, 0, 1.7183236297129916, 1.9735439285492267, 0, 0, 0, 0, 0, 0, 0, 0, 1.9678133892372334, 1.2748451923004778, 0}, size = {1, 2, 4, 4}, gx = {0.95533648912560598, 0.82533561490967833, -0.89675841633414721, -0.98747976990886488, 0.96017028665036597, 0.83471278483915978, -0.74864664559739869, -0.91113026188467694}},
unpool2s = {y = {0, 1.682941969615793, 1.9833296209049371, 0, 0, 0, 0, 0, 0, 0, 0, 1.9787164932467638, 1.3259384601643667, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, size = {1, 1, 5, 5}, gx = {0.95533648912560598, 0.82533561490967833, -0.98747976990886488, -0.89675841633414721}},
unpool2p = {y = {0, 1.682941969615793, 1.9833296209049371, 1.3509263611023026, 0, 0, 0, 0, 0, 0, 0, 1.9787164932467638, 0, 0, 0, 0, 0, 0, 0, 1.7183236297129916, 1.9735439285492267, 1.3005756803142337, 0, 0, 0, 0, 0, 0, 1.7352882012833346, 1.9678133892372334, 1.2748451923004778, 0, 0, 0, 0, 0, 0, 0, 1.9615264954903058, 0, 0, 0, 0, 0, 0, 0, 1.7677408470916547, 1.9546850247845202, 1.2223102925252034, 0}, size = {1, 2, 5, 5}, gx = {0.95533648912560598, 0.82533561490967833, 0.6216099682706645, -0.98747976990886488, -0.98747976990886488, 0.83471278483915978, 0.96017028665036597, 0.9998586363834151, 0.83471278483915978, -0.91113026188467694, -0.51928865411668557, -0.74864664559739869, -0.91113026188467694, 0.39349086634789088, 0.39349086634789088, 0.33081487794904862, 0.037158384790826407, -0.25981735621375412}},
unpool3 = {y = {0, 0, 1.9833296209049371, 0, 0, 0, 0, 0, 0, 0, 0, 1.9787164932467638, 0, 0, 0, 0, 0, 0, 0, 0, 1.9735439285492267, 0, 0, 0, 0, 0, 0, 0, 0, 1.9678133892372334, 0, 0, 0, 0, 0, 0, 0, 1.7517621596217787, 1.9615264954903058, 0, 0, 0, 0, 0, 0, 0, 0, 1.9546850247845202, 0, 0, 0, 0, 0, 0, 0, 0, 1.9472909113899595, 0, 0, 0, 0, 0, 0, 0}, size = {1, 1, 4, 4, 4}, gx = {0.96017028665036597, 0.82533561490967833, -0.74864664559739869, -0.98747976990886488, 0.10423602686569687, 0.39349086634789088, -0.46067858741136253, 0.037158384790826407}},
nll2d_mean = {y = 1.5239776831438927, gx = {-0.125, 0, 0, 0, 0, -0.125, 0, -0.125, 0, 0, -0.125, 0, 0, 0, -0.125, 0, 0, 0, 0, -0.125, -0.125, -0.125, 0, 0}},
nll2d_sum = {y = 12.191821465151142, gx = {-1, 0, 0, 0, 0, -1, 0, -1, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, 0, -1, -1, -1, 0, 0}},
nll2d_w = {y = 1.0516412478505457, gx = {-0.016129032258064519, 0, 0, 0, 0, -0.080645161290322592, 0, -0.080645161290322592, 0, 0, -0.24193548387096778, 0, 0, 0, -0.016129032258064519, 0, 0, 0, 0, -0.080645161290322592, -0.24193548387096778, -0.24193548387096778, 0, 0}},
frac2 = {y = {1.682941969615793, 1.9787164932467638, 1.3259384601643667, 1.9678133892372334, -0.017702618580807752, 0.68662985763979079, 0.71811670804433658, 1.9615264954903058, 1.9546850247845202, 1.9472909113899595, -0.11852152540675846, 1.7832197460828814, 1.7981944802891578, 1.9393462458238415, 1.1409352672747564, 1.9122321722556215, 1.085059598053939, 0.90246673739683025}, size = {1, 2, 3, 3}, gx = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.95533648912560598, 0.82533561490967833, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.070737201667702906, 0, 0.6216099682706645, 0, 0.36235775447667362, 0, 0, 0, 0, -0.22720209469308689, 0, -0.50484610459985757, 0, 0, 0, 0, 0, 0, 0, 0, -0.73739371554124544, 0, 0, 0, 0, 0, 0, 0, -0.98747976990886488, -0.90407214201706099, 0, -0.98999249660044542, 0, 0, 0, 0, 0, -0.89675841633414721, -0.72593230420014021, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.49026082134069943, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.37797774271298024, 0, -0.2107957994307797, 0.087498983439446398, 0, 0, 0, 0}},
frac2r = {y = {1.9833296209049371, 1.9833296209049371, 0.083161324866581871, -0.71645856447365741, 1.9735439285492267, 1.9735439285492267, 0.015926367571874687, -0.65327025220944446, 1.9615264954903058, 1.9615264954903058, -0.051326599721118978, -0.58934320300052878, 1.9472909113899595, 1.9472909113899595, -0.11852152540675846, -0.5247497074078713, 1.9308532742594873, 1.9308532742594873, -0.18558242351460322, -0.45956280962938989, 1.9122321722556215, 1.9122321722556215, -0.25243345963642028, -0.39385622489939554, 1.8914486626604701, 1.8914486626604701, -0.31899903668200341, -0.327704256129218, 1.8993648376284398, 1.8685262480693812, -0.38520388036660347, -0.26118170988347256}, size = {1, 2, 4, 4}, gx = {0, 0, 1.955336489125606, 0, 0.82533561490967833, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.6216099682706645, 0, 0, 0.43309495614437654, 0, -0.22720209469308689, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.50484610459985757, 0, 0, -1.6414658575583063, 0, -0.98999249660044542, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.98747976990886488, 0, 0, -1.6226907205342873, 0, -0.49026082134069943, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.2107957994307797, 0, 0, 0.46547672615242663, 0, 0.63469287594263391, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.83471278483915978, 0, 0, 1.9600289230337811, 0, 0.9502325919585296, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.81572510012535737, 0, 0, 0.9549866323672811, 0, 0.05395542056264975, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.24354415373579111, 0, 0, -0.74864664559739869, 0, -0.91113026188467694, 0, 0, 0, 0, 0, -0.51928865411668557, 0, 0, 0, 0, 0, 0, -0.99222532545260334}},
frac3 = {y = {1.7517621596217787, 1.9833296209049371, 1.9787164932467638, 1.7832197460828814, 1.9735439285492267, 1.9678133892372334, 1.7517621596217787, 1.9615264954903058, 1.9393462458238415, 1.7832197460828814, 1.9472909113899595, 1.921814397891245, 1.8885636227322413, 1.9122321722556215, 1.902109306508758, 1.9096290503593245, 1.8914486626604701, 1.8802532547651145}, size = {1, 1, 3, 2, 3}, gx = {0, 0, 0.95533648912560598, 0, 0, 0, 0, 0, 0, 0, 0, 0.82533561490967833, 0, 0, 0, 0, 0, 0, 0, 0, 0.36235775447667362, 0, 0, 0, 0, 0, 0, 0, 0, 0.070737201667702906, 0, 0, 0, 0, 0, 0, 0, 0.77279790530691317, -0.50484610459985757, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.28246217374639648, -0.98999249660044542, 0, 0, 0, 0, 0, 0, 0, 0, -0.73739371554124544, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.98747976990886488, 0, 0, 0, 0, 0, 0, 0, 0, -0.72593230420014021, 0, 0, 0, 0, 0, 0, 0, 0, -0.49026082134069943, 0, 0, 0, 0, 0, 0, 0, 0, 0.087498983439446398, 0, 0, 0, 0, 0, 0, 0, 0, 0.37797774271298024, 0, 0, 0, 0, 0, 0, 0, -0.89675841633414721, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.2107957994307797, 0, 0, 0, 0}},
frac2idx = {2, 12, 13, 30, 32, 28, 37, 39, 48, 8, 10, 7, 16, 17, 27, 44, 45, 42},
}

local function X(shape)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  return torch.range(0, n - 1):double():mul(0.7):add(0.3):sin():mul(2):view(torch.LongStorage(shape))
end
local function G(y) return torch.range(0, y:nElement() - 1):double():mul(0.3):cos():view(y:size()) end
local function dt(t) return torch.DoubleTensor(t) end
local function flat(t) return t:contiguous():view(-1) end
local function close(got, want, tol, msg) tester:assertTensorEq(flat(got), dt(want), tol or 1e-12, msg) end
local function raises(fn, pattern, msg)
  local ok, err = pcall(fn)
  tester:assert(not ok, msg .. ': expected an error')
  if not ok then tester:assert(tostring(err):find(pattern, 1, true) ~= nil, msg .. ': got ' .. tostring(err)) end
end
local function roundtrip(m) return torch.deserialize(torch.serialize(m)) end

-- Torch7's forward/backward and autograd's m(x) both against PyTorch's entry r.
local function check_module(name, m, x)
  local r = R[name]
  m:double()
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), r.size, name .. ' size')
  close(y, r.y, 1e-12, name .. ' forward')
  close(m:backward(x, G(y)), r.gx, 1e-12, name .. ' backward')
  local xa = x:clone():requiresGrad()
  local ya = m(xa)
  torch.cmul(ya, G(ya)):sum():backward()
  close(xa.grad, r.gx, 1e-12, name .. ' autograd')
  local m2 = roundtrip(m)
  close(m2:forward(x), r.y, 1e-12, name .. ' after save/load')
  tester:assert(next(m:stateDict()) == nil, name .. ': no state, as PyTorch')
end

function tests.shrinks()
  check_module('hardshrink', nn.Hardshrink(0.3), X{2, 5})
  check_module('softshrink', nn.Softshrink({lambd = 0.3}), X{2, 5})
  local h = nn.Hardshrink()
  tester:asserteq(h.lambd, 0.5, 'default lambd')
  tester:assert(torch.isTypeOf(h, 'nn.HardShrink') and torch.isTypeOf(nn.Softshrink(), 'nn.SoftShrink'), 'parents')
  tester:asserteq(tostring(nn.Softshrink(0.25)), 'nn.Softshrink(0.25)', 'printing')
  raises(function() nn.Hardshrink(-1) end, 'nn.Hardshrink', 'negative lambd')
  raises(function() nn.Softshrink({lambda = 1}) end, 'nn.Softshrink', 'Torch7 name as an option')
  local f = nn.Hardshrink(0.3):float()
  tester:asserteq(torch.type(f:forward(X{2, 5}):float()), 'torch.FloatTensor', 'float')
end

function tests.localResponseNorm()
  check_module('lrn3', nn.LocalResponseNorm(3, 0.5, 0.75, 1.5), X{2, 5, 3})
  check_module('lrn4', nn.LocalResponseNorm(4, {alpha = 0.3, beta = 0.6, k = 2}), X{1, 5, 2, 3})
  check_module('lrn5', nn.LocalResponseNorm(2), X{1, 3, 2, 2, 2})
  check_module('cmlrn3', nn.CrossMapLRN2d(3, 0.5, 0.75, 1.5), X{2, 5, 2, 3})
  check_module('lrn4', nn.CrossMapLRN2d(4, 0.3, 0.6, 2), X{1, 5, 2, 3})
  local m = nn.LocalResponseNorm(3, 0.5, 0.75, 1.5):double()
  tester:assert(torch.autograd.gradcheck(function(x) return m(x) end, { X{2, 4, 3}:requiresGrad() }), 'gradcheck')
  local c = nn.CrossMapLRN2d(2, 0.5, 0.75, 1.5):double()
  tester:assert(torch.autograd.gradcheck(function(x) return c(x) end, { X{1, 4, 2, 2}:requiresGrad() }), 'gradcheck 2d')
  raises(function() nn.CrossMapLRN2d(3):forward(torch.randn(3, 4, 4)) end, 'nn.CrossMapLRN2d', '3D input')
  raises(function() nn.LocalResponseNorm(3):forward(torch.randn(3, 4)) end, 'nn.LocalResponseNorm', '2D input')
  raises(function() nn.LocalResponseNorm(0) end, 'nn.LocalResponseNorm', 'size 0')
  raises(function() nn.LocalResponseNorm(3, {bogus = 1}) end, 'nn.LocalResponseNorm', 'unknown option')
  tester:asserteq(tostring(nn.LocalResponseNorm(2)), 'nn.LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1)', 'printing')
end

-- Pools the input with Tocha's max pool (1-based indices) and unpools; compares with PyTorch's.
local function check_unpool(name, pool, unpool, x, size, overlapping)
  local r = R[name]
  unpool:double()
  local p = pool:double():forward(x)
  local y, idx = p[1]:clone(), p[2]:clone()
  local z = unpool:forward({ y, idx, size })
  tester:assertTableEq(z:size():totable(), r.size, name .. ' size')
  close(z, r.y, 1e-12, name .. ' forward')
  local g = unpool:backward({ y, idx, size }, G(z))
  close(g[1], r.gx, 1e-12, name .. ' backward')
  tester:asserteq(g[2]:abs():sum(), 0, name .. ': no gradient for the indices')
  local ya = y:clone():requiresGrad()
  local za = unpool(ya, idx, size)
  close(za, r.y, 1e-12, name .. ' call form')
  torch.cmul(za, G(za)):sum():backward()
  close(ya.grad, r.gx, 1e-12, name .. ' autograd')
  -- (overlapping windows may repeat an index: the scatter keeps one value there while the gather of
  -- the backward, PyTorch's too, passes the gradient to each; finite differences see only one)
  if not overlapping then
    tester:assert(torch.autograd.gradcheck(function(v) return unpool(v, idx, size) end, { y:clone():requiresGrad() }),
      name .. ' gradcheck')
  end
  close(roundtrip(unpool):forward({ y, idx, size }), r.y, 1e-12, name .. ' after save/load')
end

function tests.maxUnpool()
  check_unpool('unpool1', nn.MaxPool1d(2, {returnIndices = true}), nn.MaxUnpool1d(2), X{2, 2, 6})
  check_unpool('unpool2', nn.MaxPool2d(2, {returnIndices = true}), nn.MaxUnpool2d(2), X{1, 2, 4, 4})
  check_unpool('unpool2s', nn.MaxPool2d(2, {returnIndices = true}), nn.MaxUnpool2d(2), X{1, 1, 5, 5}, {5, 5})
  check_unpool('unpool2s', nn.MaxPool2d(2, {returnIndices = true}), nn.MaxUnpool2d(2), X{1, 1, 5, 5}, {1, 1, 5, 5})
  check_unpool('unpool2p', nn.MaxPool2d(3, 2, 1, {returnIndices = true}), nn.MaxUnpool2d(3, {stride = 2, padding = 1}),
    X{1, 2, 5, 5}, nil, true)
  check_unpool('unpool3', nn.MaxPool3d(2, {returnIndices = true}), nn.MaxUnpool3d(2), X{1, 1, 4, 4, 4})
  -- the indices of nn.functional.maxPool2dWithIndices are the same 1-based positions
  local y, i = nn.functional.maxPool2dWithIndices(X{1, 2, 4, 4}, 2)
  close(nn.MaxUnpool2d(2):double()(y, i), R.unpool2.y, 1e-12, 'functional indices')
  tester:asserteq(tostring(nn.MaxUnpool2d(2, 1)), 'nn.MaxUnpool2d(kernelSize 2x2, stride 1x1, padding 0x0)', 'printing')
  local m = nn.MaxUnpool2d(2):double()
  raises(function() m:forward(y) end, 'nn.MaxUnpool2d', 'tensor instead of {x, indices}')
  raises(function() m:forward({ y, i:clone():fill(17) }) end, 'nn.MaxUnpool2d', 'indices out of range')
  raises(function() m:forward({ y, i, {9, 9} }) end, 'nn.MaxUnpool2d', 'bad output size')
  raises(function() nn.MaxUnpool3d({2, 2}) end, 'nn.MaxUnpool3d', 'kernel of 2 numbers')
  raises(function() nn.MaxUnpool1d(2):forward({ torch.randn(3), torch.LongTensor(3):fill(1) }) end, 'nn.MaxUnpool1d',
    '1D input')
end

function tests.nllLoss2d()
  local x = X{2, 3, 2, 2}
  local lsm = x:add(-torch.logsumexp(x, 2):expandAs(x)) -- log_softmax over dim 2
  local t = torch.LongTensor({ { { 0, 1 }, { 2, 1 } }, { { 2, 2 }, { 0, 1 } } }):add(1)
  for _, spec in ipairs({ { 'nll2d_mean', nn.NLLLoss2d() }, { 'nll2d_sum', nn.NLLLoss2d({reduction = 'sum'}) },
    { 'nll2d_w', nn.NLLLoss2d(dt({0.2, 1, 3})) } }) do
    local r, c = R[spec[1]], spec[2]
    tester:assertalmosteq(c:forward(lsm, t), r.y, 1e-12, spec[1] .. ' forward')
    close(c:backward(lsm, t), r.gx, 1e-12, spec[1] .. ' backward')
    local xa = lsm:clone():requiresGrad()
    c(xa, t):backward()
    close(xa.grad, r.gx, 1e-12, spec[1] .. ' autograd')
  end
  tester:assert(torch.isTypeOf(nn.NLLLoss2d(), 'nn.NLLLoss'), 'an nn.NLLLoss')
  tester:assert(tostring(nn.NLLLoss2d()):find('^nn%.NLLLoss2d') ~= nil, 'printing')
  raises(function() nn.NLLLoss2d({reduction = 'avg'}) end, 'nn.NLLLoss2d', 'bad reduction')
  raises(function() nn.NLLLoss2d({bogus = 1}) end, 'nn.NLLLoss2d', 'unknown option')
end

function tests.fractionalMaxPoolGivenSamples()
  local s2 = dt({ { { 0.3, 0.7 }, { 0.9, 0.1 } } })
  check_module('frac2', nn.FractionalMaxPool2d(2, {outputSize = 3, _randomSamples = s2}), X{1, 2, 7, 7})
  check_module('frac2r', nn.FractionalMaxPool2d({2, 3}, nil, {0.5, 0.5}, false, s2), X{1, 2, 8, 9})
  check_module('frac3', nn.FractionalMaxPool3d(2, {outputSize = {3, 2, 3}, _randomSamples = dt({ { { 0.2, 0.5, 0.8 } } })}),
    X{1, 1, 5, 5, 6})
  local m = nn.FractionalMaxPool2d(2, {outputSize = 3, returnIndices = true, _randomSamples = s2}):double()
  local o = m:forward(X{1, 2, 7, 7})
  close(o[1], R.frac2.y, 1e-12, 'returnIndices values')
  tester:assertTensorEq(flat(o[2]):double(), dt(R.frac2idx), 0, 'indices (PyTorch\'s + 1)')
  close(m:backward(X{1, 2, 7, 7}, { G(o[1]), o[2] }), R.frac2.gx, 1e-12, 'backward of {output, indices}')
  local f = nn.FractionalMaxPool2d(2, {outputSize = 3, _randomSamples = s2}):double()
  tester:assert(torch.autograd.gradcheck(function(v) return f(v) end, { X{1, 2, 7, 7}:requiresGrad() }), 'gradcheck')
  tester:asserteq(tostring(nn.FractionalMaxPool3d(2, {outputRatio = 0.5})),
    'nn.FractionalMaxPool3d(kernelSize 2x2x2, outputRatio 0.5x0.5x0.5)', 'printing')
  raises(function() nn.FractionalMaxPool2d(2) end, 'nn.FractionalMaxPool2d', 'neither size nor ratio')
  raises(function() nn.FractionalMaxPool2d(2, 3, 0.5) end, 'nn.FractionalMaxPool2d', 'both size and ratio')
  raises(function() nn.FractionalMaxPool2d(2, {outputRatio = 1.5}) end, 'nn.FractionalMaxPool2d', 'ratio >= 1')
  raises(function() nn.FractionalMaxPool2d(2, 6):forward(torch.randn(1, 1, 5, 5)) end, 'nn.FractionalMaxPool2d',
    'output too large')
  raises(function() nn.FractionalMaxPool3d(2, 2):forward(torch.randn(1, 4, 4)) end, 'nn.FractionalMaxPool3d', '3D input')
end

-- Drawn windows: every output is the maximum of a kernel-sized window inside the input, the
-- draws differ between forwards, and the backward follows the last forward's indices.
function tests.fractionalMaxPoolRandom()
  torch.manualSeed(7)
  local m = nn.FractionalMaxPool2d(2, {outputSize = {4, 5}}):double()
  local x = torch.randn(3, 2, 9, 11):double()
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 3, 2, 4, 5 }, 'size')
  tester:assertTableEq(m.samples:size():totable(), { 3, 2, 2 }, 'samples N x C x 2')
  tester:assertTensorEq(y, x:view(6, 99):gather(2, m.indices:view(6, 20)):viewAs(y), 0, 'values at the indices')
  local again = m:forward(x):clone()
  local first_samples = m.samples:clone()
  tester:assert((m:forward(x) - again):abs():max() > 0 or (m.samples - first_samples):abs():max() > 0, 'fresh draws')
  local g = m:backward(x, torch.ones(3, 2, 4, 5))
  local want = torch.zeros(6, 99):double():scatterAdd(2, m.indices:view(6, 20), torch.ones(6, 20):double())
  tester:assertTensorEq(g, want:viewAs(x), 0, 'backward scatters to the last forward\'s indices')
  -- PyTorch's windows from the drawn samples: the module with those samples gives the same output
  local fixed = nn.FractionalMaxPool2d(2, {outputSize = {4, 5}, _randomSamples = m.samples:clone()}):double()
  tester:assertTensorEq(fixed:forward(x), m.output, 0, 'samples reproduce the output')
  local u = nn.FractionalMaxPool3d(2, {outputRatio = 0.5}):float()
  tester:assertTableEq(u:forward(torch.randn(2, 6, 8, 7)):size():totable(), { 2, 3, 4, 3 }, 'unbatched 3d ratio')
end

-- Alpha dropout keeps a standard normal input's mean 0 and variance 1; a dropped element is
-- -alpha a (1 - p), a kept one a x + alpha a p (a = 1 / sqrt((alpha^2 p + 1)(1 - p))).
local SELU_ALPHA = 1.7580993408473766
local function alpha_constants(p)
  local a = 1 / math.sqrt((SELU_ALPHA * SELU_ALPHA * p + 1) * (1 - p))
  return a, -SELU_ALPHA * a * (1 - p)
end

function tests.alphaDropoutMoments()
  torch.manualSeed(11)
  local n, p = 400000, 0.2
  local m = nn.AlphaDropout(p):double()
  local x = torch.randn(n):double()
  local y = m:forward(x)
  local a, dropped = alpha_constants(p)
  local isDropped = torch.lt(torch.abs(y - dropped), 1e-12)
  local frac = isDropped:double():mean()
  tester:assert(math.abs(frac - p) < 5 * math.sqrt(p * (1 - p) / n), 'dropped fraction ' .. frac)
  tester:assert(math.abs(y:mean()) < 5 / math.sqrt(n), 'mean ' .. y:mean())
  -- the variance of a sample variance of a unit-variance variable with kurtosis < 6: 5 / n is generous
  tester:assert(math.abs(y:var() - 1) < 5 * math.sqrt(5 / n), 'variance ' .. y:var())
  local kept = torch.eq(isDropped, 0)
  tester:assertTensorEq(y[kept], x[kept] * a + SELU_ALPHA * a * p, 1e-12, 'kept elements')
  local g = m:backward(x, torch.ones(n):double())
  tester:assertTensorEq(g, kept:double() * a, 1e-12, 'backward uses the forward\'s mask')
  -- autograd through the call form: the same relation
  local xa = x:clone():requiresGrad()
  local ya = m(xa)
  ya:sum():backward()
  tester:assertTensorEq(xa.grad, torch.ne(torch.abs(ya - dropped):lt(1e-12), 1):double() * a, 1e-12, 'autograd')
  m:evaluate()
  tester:assertTensorEq(m:forward(x), x, 0, 'evaluation: identity')
  tester:assertTensorEq(m:backward(x, x), x, 0, 'evaluation backward: identity')
  m:training()
  local z = nn.AlphaDropout(0):double()
  tester:assertTensorEq(z:forward(x), x, 0, 'p = 0: identity')
  tester:asserteq(tostring(m), 'nn.AlphaDropout(0.2)', 'printing')
  raises(function() nn.AlphaDropout(1.5) end, 'nn.AlphaDropout', 'p > 1')
  raises(function() nn.AlphaDropout(0.5):forward(torch.LongTensor(3)) end, 'AlphaDropout', 'integer input')
  tester:assert(next(m:stateDict()) == nil, 'no state')
  tester:asserteq(roundtrip(m).p, 0.2, 'save/load')
end

function tests.featureAlphaDropoutMoments()
  torch.manualSeed(12)
  local N, C, L, p = 500, 200, 8, 0.3
  local m = nn.FeatureAlphaDropout({p = p}):double()
  local x = torch.randn(N, C, L):double()
  local y = m:forward(x)
  local a, dropped = alpha_constants(p)
  local isDropped = torch.lt(torch.abs(y - dropped), 1e-12):double()
  local perChannel = isDropped:sum(3):view(N, C)
  tester:assert(torch.eq(perChannel, 0):add(torch.eq(perChannel, L)):min() == 1, 'whole channels dropped')
  local frac = torch.eq(perChannel, L):double():mean()
  tester:assert(math.abs(frac - p) < 5 * math.sqrt(p * (1 - p) / (N * C)), 'dropped fraction ' .. frac)
  local n = N * C * L
  tester:assert(math.abs(y:mean()) < 5 * math.sqrt(L / n), 'mean ' .. y:mean())  -- correlated within channels
  tester:assert(math.abs(y:var() - 1) < 5 * math.sqrt(5 * L / n), 'variance ' .. y:var())
  local g = m:backward(x, torch.ones(N, C, L):double())
  tester:assertTensorEq(g, (1 - isDropped) * a, 1e-12, 'backward uses the forward\'s mask')
  m:evaluate()
  tester:assertTensorEq(m:forward(x), x, 0, 'evaluation: identity')
  raises(function() nn.FeatureAlphaDropout():forward(torch.randn(4)) end, 'nn.FeatureAlphaDropout', '1D input')
end

function tests.dropout1d()
  torch.manualSeed(13)
  local N, C, L, p = 400, 100, 6, 0.4
  local m = nn.Dropout1d(p):double()
  local x = torch.rand(N, C, L):double():add(0.5)
  local y = m:forward(x)
  local zero = torch.eq(y, 0):double():sum(3):view(N, C)
  tester:assert(torch.eq(zero, 0):add(torch.eq(zero, L)):min() == 1, 'whole channels zeroed')
  local frac = torch.eq(zero, L):double():mean()
  tester:assert(math.abs(frac - p) < 5 * math.sqrt(p * (1 - p) / (N * C)), 'dropped fraction ' .. frac)
  local kept = torch.ne(y, 0)
  tester:assertTensorEq(y[kept], x[kept] / (1 - p), 1e-12, 'kept scaled by 1 / (1 - p)')
  tester:assertTensorEq(m:backward(x, torch.ones(N, C, L):double()), kept:double() / (1 - p), 1e-12, 'backward')
  tester:assertTableEq(m:forward(torch.randn(C, L):double()):size():totable(), { C, L }, 'unbatched C x L')
  m:evaluate()
  tester:assertTensorEq(m:forward(x), x, 0, 'evaluation: identity')
  tester:asserteq(tostring(m), 'nn.Dropout1d(0.4)', 'printing')
  raises(function() nn.Dropout1d(0.5):forward(torch.randn(2, 3, 4, 5)) end, 'nn.Dropout1d', '4D input')
  raises(function() nn.Dropout1d(0.5, 3) end, 'nn.Dropout1d', 'inplace not a boolean')
end

-- A lazy module: empty parameters before its first forward, then its eager twin's behaviour.
function tests.lazyBatchNorm()
  for nd, shape in ipairs({ { 4, 3, 5 }, { 4, 3, 5, 2 }, { 2, 3, 2, 3, 2 } }) do
    local name = 'nn.LazyBatchNorm' .. nd .. 'd'
    local m = nn['LazyBatchNorm' .. nd .. 'd']({momentum = 0.2}):double()
    tester:assert(m:isLazy(), name .. ' lazy')
    tester:asserteq(tostring(m), name .. '(?)', name .. ' printing')
    local params = m:parameters()
    tester:asserteq(#params, 2, name .. ' lists weight and bias')
    tester:asserteq(params[1]:nElement(), 0, name .. ' empty weight')
    local opt = optim.SGD(m, {lr = 0.1})
    local x = X(shape)
    local eager = nn['BatchNorm' .. nd .. 'd'](3, {momentum = 0.2}):double()
    local y = m:forward(x)
    tester:assert(not m:isLazy(), name .. ' materialized')
    tester:assert(rawequal(m.weight, params[1]), name .. ' same weight object')
    tester:assertTensorEq(y, eager:forward(x), 1e-12, name .. ' forward as BatchNorm')
    tester:assertTensorEq(m.running_var, eager.running_var, 1e-12, name .. ' running statistics')
    tester:assertTensorEq(m:backward(x, G(y)), eager:backward(x, G(y)), 1e-12, name .. ' backward')
    tester:assertTensorEq(m.gradWeight, eager.gradWeight, 1e-12, name .. ' gradWeight')
    opt:step()
    tester:assertTensorEq(m.weight, eager.weight - eager.gradWeight * 0.1, 1e-12, name .. ' optimizer built before')
    local sd = m:stateDict()
    for _, k in ipairs({ 'weight', 'bias', 'running_mean', 'running_var' }) do
      tester:assert(torch.isTensor(sd[k]) and sd[k]:nElement() == 3, name .. ' state dict ' .. k)
    end
    local fresh = nn['LazyBatchNorm' .. nd .. 'd']():double()
    fresh:loadStateDict(sd)
    tester:assert(not fresh:isLazy(), name .. ' materialized by loadStateDict')
    fresh:evaluate() m:evaluate()
    tester:assertTensorEq(fresh:forward(x), m:forward(x), 1e-12, name .. ' loaded')
    tester:assertTensorEq(roundtrip(m):forward(x), m:forward(x), 1e-12, name .. ' save/load')
    tester:assert(tostring(m):find(name, 1, true) == 1, name .. ' printing after')
    tester:assert(torch.isTypeOf(m, 'nn.BatchNorm' .. nd .. 'd'), name .. ' parent')
  end
  local f = nn.LazyBatchNorm2d():float()
  tester:asserteq(torch.type(f:forward(torch.randn(2, 3, 2, 2))), 'torch.FloatTensor', 'float')
  raises(function() nn.LazyBatchNorm2d():forward(torch.randn(2, 3)) end, 'nn.LazyBatchNorm2d', '2D input')
  raises(function() nn.LazyBatchNorm1d(1e-5, 0.1, true, false) end, 'nn.LazyBatchNorm1d', 'trackRunningStats false')
  raises(function() nn.LazyBatchNorm1d({numFeatures = 3}) end, 'nn.LazyBatchNorm1d', 'numFeatures given')
end

function tests.lazyInstanceNorm()
  for nd, shape in ipairs({ { 2, 3, 5 }, { 2, 3, 4, 3 }, { 3, 2, 3, 2 } }) do
    local name = 'nn.LazyInstanceNorm' .. nd .. 'd'
    local m = nn['LazyInstanceNorm' .. nd .. 'd']({affine = true, trackRunningStats = true}):double()
    tester:assert(m:isLazy() and m:parameters()[1]:nElement() == 0, name .. ' lazy')
    local x = X(shape)
    local C = #shape == nd + 2 and shape[2] or shape[1]
    local eager = nn['InstanceNorm' .. nd .. 'd'](C, {affine = true, trackRunningStats = true}):double()
    local y = m:forward(x)
    tester:asserteq(m.nFeatures, C, name .. ' features')
    tester:assertTensorEq(y, eager:forward(x), 1e-12, name .. ' forward as InstanceNorm')
    tester:assertTensorEq(m:backward(x, G(y)), eager:backward(x, G(y)), 1e-12, name .. ' backward')
    tester:assertTensorEq(m.running_mean, eager.running_mean, 1e-12, name .. ' running mean')
    local fresh = nn['LazyInstanceNorm' .. nd .. 'd']({affine = true, trackRunningStats = true}):double()
    fresh:loadStateDict(m:stateDict())
    tester:assertTensorEq(fresh.running_var, m.running_var, 0, name .. ' loaded')
  end
  local plain = nn.LazyInstanceNorm2d():double()
  tester:asserteq(plain:parameters(), nil, 'no affine: no parameters')
  tester:assertTensorEq(plain:forward(X{2, 3, 2, 2}), nn.InstanceNorm2d(3):double():forward(X{2, 3, 2, 2}), 1e-12, 'plain')
  raises(function() nn.LazyInstanceNorm1d():forward(torch.randn(2, 3, 4, 5)) end, 'nn.LazyInstanceNorm1d', '4D input')
end

function tests.lazyConvTranspose()
  for nd, spec in ipairs({ { 4, 4, 7 }, { 2, 4, 5, 6 }, { 1, 4, 3, 4, 3 } }) do
    local name = 'nn.LazyConvTranspose' .. nd .. 'd'
    local m = nn['LazyConvTranspose' .. nd .. 'd'](6, 3, {stride = 2, padding = 1, outputPadding = 1, groups = 2}):double()
    tester:assert(m:isLazy() and m.weight:nElement() == 0 and m.bias:nElement() == 6, name .. ' lazy')
    tester:assert(tostring(m):find('?', 1, true) ~= nil, name .. ' printing')
    local x = X(spec)
    local y = m:forward(x)
    local inC = spec[2]
    local want = { inC, 3 }
    for _ = 1, nd do want[#want + 1] = 3 end
    tester:assertTableEq(m.weight:size():totable(), want, name .. ' weight in x out/groups x k')
    local eager = nn['ConvTranspose' .. nd .. 'd'](inC, 6, 3, {stride = 2, padding = 1, outputPadding = 1, groups = 2}):double()
    eager.weight:copy(m.weight) eager.bias:copy(m.bias)
    tester:assertTensorEq(y, eager:forward(x), 1e-12, name .. ' forward as ConvTranspose')
    tester:assertTensorEq(m:backward(x, G(y)), eager:backward(x, G(y)), 1e-12, name .. ' backward')
    tester:assertTensorEq(m.gradWeight, eager.gradWeight, 1e-12, name .. ' gradWeight')
    local fresh = nn['LazyConvTranspose' .. nd .. 'd'](6, 3, {stride = 2, padding = 1, outputPadding = 1, groups = 2}):double()
    fresh:loadStateDict(m:stateDict())
    tester:assertTensorEq(fresh:forward(x), y, 1e-12, name .. ' loaded')
    tester:assertTensorEq(roundtrip(m):forward(x), y, 1e-12, name .. ' save/load')
  end
  -- the weight drawn at the first forward: PyTorch's bound 1 / sqrt(fan_in) with fan_in = out/groups * k
  local m = nn.LazyConvTranspose2d(8, 3):double()
  m:forward(torch.randn(1, 5, 4, 4):double())
  tester:assert(m.weight:abs():max() <= 1 / math.sqrt(8 * 9) + 1e-12, 'init bound')
  raises(function() nn.LazyConvTranspose2d(4, 3, {groups = 2}):forward(torch.randn(1, 3, 4, 4)) end,
    'nn.LazyConvTranspose2d', 'groups not dividing')
  raises(function() nn.LazyConvTranspose1d(4, 3):forward(torch.randn(4)) end, 'nn.LazyConvTranspose1d', '1D input')
end

function tests.parameterList()
  local a, b = torch.randn(2, 3):double(), torch.randn(4):double()
  local l = nn.ParameterList({ a, b })
  tester:asserteq(#l, 2, '#list')
  tester:assert(rawequal(l[1], a) and rawequal(l:get(-1), b), 'items')
  local params = l:parameters()
  tester:assert(#params == 2 and rawequal(params[1], a) and rawequal(params[2], b), 'parameters')
  local sd = l:stateDict()
  tester:assert(rawequal(sd['0'], a) and rawequal(sd['1'], b), 'state dict names 0, 1')
  -- held by a PyTorch-style module
  local net = nn.Module()
  net.fc = nn.Linear(3, 2):double()
  net.scales = l
  local names = {}
  for name in pairs(net:stateDict()) do names[#names + 1] = name end
  table.sort(names)
  tester:assertTableEq(names, { 'fc.bias', 'fc.weight', 'scales.0', 'scales.1' }, 'owner\'s names')
  tester:asserteq(#net:parameters(), 4, 'owner\'s parameters')
  -- optimizers built from the owner update the list's tensors
  local opt = optim.SGD(net, {lr = 0.5})
  opt:zeroGrad()
  local before = a:clone()
  local loss = torch.cmul(net.scales[1], net.scales[1]):sum()
  loss:backward()
  tester:assertTensorEq(a.grad, before * 2, 1e-12, 'gradient')
  opt:step()
  tester:assertTensorEq(a, before * 0, 1e-12, 'SGD step on a list item')
  -- conversion keeps list[i] and the registered tensor one object
  net:float()
  tester:asserteq(torch.type(net.scales[1]), 'torch.FloatTensor', 'float')
  tester:assert(rawequal(net.scales[1], net.scales['0']) and rawequal(net:parameters()[3], net.scales[1]), 'one object')
  l:double()
  tester:assert(rawequal(l[2], l['1']) and torch.type(l[2]) == 'torch.DoubleTensor', 'list double')
  -- state dict round trip and save/load
  local l2 = nn.ParameterList({ torch.zeros(2, 3):double(), torch.zeros(4):double() })
  l2:loadStateDict(l:stateDict())
  tester:assertTensorEq(l2[2], l[2], 0, 'loadStateDict')
  local l3 = roundtrip(l)
  tester:assert(rawequal(l3[1], l3['0']), 'save/load keeps one object')
  tester:assertTensorEq(l3[2], l[2], 0, 'save/load')
  l3:append(torch.ones(1):double()):extend({ torch.ones(2):double() })
  tester:asserteq(#l3:parameters(), 4, 'append and extend')
  l3:set(1, torch.ones(5):double())
  tester:asserteq(l3:stateDict()['0']:nElement(), 5, 'set')
  tester:assert(tostring(l):find('(1): Parameter containing: [torch.DoubleTensor of size 4]', 1, true) ~= nil, 'printing')
  raises(function() nn.ParameterList({ torch.LongTensor(2) }) end, 'nn.ParameterList', 'integer tensor')
  raises(function() l:get(3) end, 'nn.ParameterList.get', 'index out of range')
  raises(function() l:forward(torch.randn(2)) end, 'nn.ParameterList', 'no forward')
end

function tests.parameterDict()
  local d = nn.ParameterDict({ { 'scale', torch.ones(3):double() }, { 'shift', torch.zeros(3):double() } })
  d:set('extra', torch.randn(2):double())
  tester:assertTableEq(d:keys(), { 'scale', 'shift', 'extra' }, 'insertion order')
  tester:asserteq(#d:parameters(), 3, 'parameters')
  tester:assert(rawequal(d.scale, d:get('scale')) and d:contains('shift') and not d:contains('nope'), 'access')
  local names = {}
  for name in d:namedParameters() do names[#names + 1] = name end
  tester:assertTableEq(names, { 'scale', 'shift', 'extra' }, 'named parameters')
  local net = nn.Module()
  net.p = d
  local sd = net:stateDict()
  tester:assert(rawequal(sd['p.scale'], d.scale) and rawequal(sd['p.extra'], d.extra), 'owner\'s names')
  local opt = optim.SGD(net, {lr = 1})
  opt:zeroGrad()
  torch.cmul(net.p.scale, net.p.shift:add(2)):sum():backward()
  opt:step()
  tester:assertTensorEq(d.scale, torch.ones(3):double() - 2, 1e-12, 'SGD step on a dict item')
  net:float()
  tester:asserteq(torch.type(d.scale), 'torch.FloatTensor', 'float')
  tester:asserteq(torch.type(net:parameters()[1]), 'torch.FloatTensor', 'parameters converted')
  net:double()
  local n2 = nn.Module()
  n2.p = nn.ParameterDict({ scale = torch.zeros(3):double(), shift = torch.zeros(3):double(), extra = torch.zeros(2):double() })
  n2:loadStateDict(net:stateDict())
  tester:assertTensorEq(n2.p.extra, d.extra, 0, 'state dict round trip')
  local d2 = roundtrip(d)
  tester:assertTableEq(d2:keys(), d:keys(), 'save/load keeps the order')
  tester:assertTensorEq(d2.shift, d.shift, 0, 'save/load')
  local popped = d2:pop('shift')
  tester:assert(torch.isTensor(popped) and d2.shift == nil and #d2:parameters() == 2, 'pop')
  tester:assert(d2:stateDict().shift == nil, 'popped key left the state dict')
  tester:asserteq(d2:clear():size(), 0, 'clear')
  tester:assertTableEq(nn.ParameterDict({ b = torch.ones(1), a = torch.ones(1) }):keys(), { 'a', 'b' }, 'sorted keys')
  tester:assert(tostring(d):find('(scale): Parameter containing', 1, true) ~= nil, 'printing')
  local w = nn.ParameterDict({ weight = torch.ones(2), z = torch.ones(1) })
  tester:assertTableEq(w:keys(), { 'weight', 'z' }, 'weight is a key like any other')
  tester:asserteq(#w:parameters(), 2, 'weight listed')
  w:pop('weight')
  tester:assert(w.weight == nil and #w:parameters() == 1 and w:stateDict().weight == nil, 'weight popped')
  raises(function() d:set('keys', torch.ones(1)) end, 'nn.ParameterDict', 'method name as key')
  raises(function() d:set('a.b', torch.ones(1)) end, 'nn.ParameterDict', 'dotted key')
  raises(function() d:set('x', 3) end, 'nn.ParameterDict', 'not a tensor')
  raises(function() d:pop('nope') end, 'nn.ParameterDict.pop', 'missing key')
  raises(function() d:forward(torch.randn(2)) end, 'nn.ParameterDict', 'no forward')
end

tester:add(tests)
tester:run()
