-- torch.special's Bessel functions of the first kind besselJ0, besselJ1 and the Airy function
-- airyAi: Cephes's rational approximations (the coefficients PyTorch's kernels use too),
-- evaluated by Horner's rule with tensor ops in double, so they run on every device and are
-- differentiable (Note [Special functions from tensor ops] in special.lua).
local torch = require 'torch.env'
local special = torch.special
local in_double, to_dtype = special._in_double, special._to_dtype

-- Horner's rule: c[1] x^n + ... + c[n+1]; with leading_one, x^n + c[1] x^(n-1) + ... (Cephes's
-- polevl and p1evl).
local function poly(x, c, leading_one)
  local r
  if leading_one then r = x + c[1] else r = x * c[1] + c[2] end
  for i = leading_one and 2 or 3, #c do r = torch.cmul(r, x) + c[i] end
  return r
end

local SQ2OPI, PIO4 = 0.79788456080286535588, math.pi / 4

-- Cephes j0.c: a rational function of x^2 times its first two zeros' factors up to 5, the
-- Hankel asymptotic form with two rational functions of 25 / x^2 beyond.
local J0 = {
  RP = { -4.79443220978201773821E9, 1.95617491946556577543E12, -2.49248344360967716204E14, 9.70862251047306323952E15 },
  RQ = { 4.99563147152651017219E2, 1.73785401676374683123E5, 4.84409658339962045305E7, 1.11855537045356834862E10,
    2.11277520115489217587E12, 3.10518229857422583814E14, 3.18121955943204943306E16, 1.71086294081043136091E18 },
  PP = { 7.96936729297347051624E-4, 8.28352392107440799803E-2, 1.23953371646414299388E0, 5.44725003058768775090E0,
    8.74716500199817011941E0, 5.30324038235394892183E0, 9.99999999999999997821E-1 },
  PQ = { 9.24408810558863637013E-4, 8.56288474354474431428E-2, 1.25352743901058953537E0, 5.47097740330417105182E0,
    8.76190883237069594232E0, 5.30605288235394617618E0, 1.00000000000000000218E0 },
  QP = { -1.13663838898469149931E-2, -1.28252718670509318512E0, -1.95539544257735972385E1, -9.32060152123768231369E1,
    -1.77681167980488050595E2, -1.47077505154951170175E2, -5.14105326766599330220E1, -6.05014350600728481186E0 },
  QQ = { 6.43178256118178023184E1, 8.56430025976980587198E2, 3.88240183605401609683E3, 7.24046774195652478189E3,
    5.93072701187316984827E3, 2.06209331660327847417E3, 2.42005740240291393179E2 },
  DR1 = 5.78318596294678452118E0, DR2 = 3.04712623436620863991E1,
}
local J1 = {
  RP = { -8.99971225705559398224E8, 4.52228297998194034323E11, -7.27494245221818276015E13, 3.68295732863852883286E15 },
  RQ = { 6.20836478118054335476E2, 2.56987256757748830383E5, 8.35146791431949253037E7, 2.21511595479792499675E10,
    4.74914122079991414898E12, 7.84369607876235854894E14, 8.95222336184627338078E16, 5.32278620332680085395E18 },
  PP = { 7.62125616208173112003E-4, 7.31397056940917570436E-2, 1.12719608129684925192E0, 5.11207951146807644818E0,
    8.42404590141772420927E0, 5.21451598682361504063E0, 1.00000000000000000254E0 },
  PQ = { 5.71323128072548699714E-4, 6.88455908754495404082E-2, 1.10514232634061696926E0, 5.07386386128601488557E0,
    8.39985554327604159757E0, 5.20982848682361821619E0, 9.99999999999999997461E-1 },
  QP = { 5.10862594750176621635E-2, 4.98213872951233449420E0, 7.58238284132545283818E1, 3.66779609360150777800E2,
    7.10856304998926107277E2, 5.97489612400613639965E2, 2.11688757100572135698E2, 2.52070205858023719784E1 },
  QQ = { 7.42373277035675149943E1, 1.05644886038262816351E3, 4.98641058337653607651E3, 9.56231892404756170795E3,
    7.99704160447350683650E3, 2.82619278517639096600E3, 3.36093607810698293419E2 },
  Z1 = 1.46819706421238932572E1, Z2 = 4.92184563216946036703E1,
}

-- The Hankel form beyond 5 for |x| (ax), with phase shift `shift`.
local function hankel(c, ax, shift)
  local w = torch.pow(ax, -1) * 5
  local q = torch.cmul(w, w)
  local p = torch.cdiv(poly(q, c.PP), poly(q, c.PQ))
  local qq = torch.cdiv(poly(q, c.QP), poly(q, c.QQ, true))
  local xn = ax - shift
  local v = torch.cmul(p, torch.cos(xn)) - torch.cmul(torch.cmul(w, qq), torch.sin(xn))
  return torch.cmul(v, torch.rsqrt(ax)) * SQ2OPI
end

--- torch.special.besselJ0(x): the Bessel function of the first kind of order 0 (PyTorch's
--- special.bessel_j0), by Cephes's rational approximations in double. Differentiable.
--- Example: torch.special.besselJ0(torch.Tensor({0, 1, 2.4048}))
function special.besselJ0(x)
  local xd, dt = in_double('special.besselJ0', x)
  local ax = torch.abs(xd)
  local small = torch.le(ax, 5)
  local xs = torch.where(small, xd, 1)
  local z = torch.cmul(xs, xs)
  local near = torch.cmul(z - J0.DR1, z - J0.DR2)
  local inner = torch.cmul(near, torch.cdiv(poly(z, J0.RP), poly(z, J0.RQ, true)))
  inner = torch.where(torch.lt(ax, 1e-5), 1 - z / 4, inner)
  local outer = hankel(J0, torch.where(small, 10, ax), PIO4)
  return (to_dtype(torch.where(small, inner, outer), dt))
end

--- torch.special.besselJ1(x): the Bessel function of the first kind of order 1 (PyTorch's
--- special.bessel_j1), by Cephes's rational approximations in double. Differentiable.
--- Example: torch.special.besselJ1(torch.Tensor({0, 1, 3.8317}))
function special.besselJ1(x)
  local xd, dt = in_double('special.besselJ1', x)
  local ax = torch.abs(xd)
  local small = torch.le(ax, 5)
  local xs = torch.where(small, xd, 1)
  local z = torch.cmul(xs, xs)
  local inner = torch.cmul(torch.cdiv(poly(z, J1.RP), poly(z, J1.RQ, true)),
    torch.cmul(xs, torch.cmul(z - J1.Z1, z - J1.Z2)))
  local outer = torch.cmul(hankel(J1, torch.where(small, 10, ax), 3 * PIO4), torch.sign(xd))
  return (to_dtype(torch.where(small, inner, outer), dt))
end

-- Cephes airy.c, Ai only: the Maclaurin series up to |x| = 2.09, a rational function of 1 / zeta
-- (zeta = 2/3 x^(3/2)) times e^-zeta above, the oscillating asymptotic form below -2.09; 0
-- beyond x = 103.892, where e^-zeta underflows.
local AI = {
  AN = { 3.46538101525629032477E-1, 1.20075952739645805542E1, 7.62796053615234516538E1, 1.68089224934630576269E2,
    1.59756391350164413639E2, 7.05360906840444183113E1, 1.40264691163389668864E1, 9.99999999999999995305E-1 },
  AD = { 5.67594532638770212846E-1, 1.47562562584847203173E1, 8.45138970141474626562E1, 1.77318088145400459522E2,
    1.64234692871529701831E2, 7.14778400825575695274E1, 1.40959135607834029598E1, 1.00000000000000000470E0 },
  AFN = { -1.31696323418331795333E-1, -6.26456544431912369773E-1, -6.93158036036933542233E-1,
    -2.79779981545119124951E-1, -4.91900132609500318020E-2, -4.06265923594885404393E-3,
    -1.59276496239262096340E-4, -2.77649108155232920844E-6, -1.67787698489114633780E-8 },
  AFD = { 1.33560420706553243746E1, 3.26825032795224613948E1, 2.67367040941499554804E1, 9.18707402907259625840E0,
    1.47529146771666414581E0, 1.15687173795188044134E-1, 4.40291641615211203805E-3, 7.54720348287414296618E-5,
    4.51850092970580378464E-7 },
  AGN = { 1.97339932091685679179E-2, 3.91103029615688277255E-1, 1.06579897599595591108E0, 9.39169229816650230044E-1,
    3.51465656105547619242E-1, 6.33888919628925490927E-2, 5.85804113048388458567E-3, 2.82851600836737019778E-4,
    6.98793669997260967291E-6, 8.11789239554389293311E-8, 3.41551784765923618484E-10 },
  AGD = { 9.30892908077441974853E0, 1.98352928718312140417E1, 1.55646628932864612953E1, 5.47686069422975497931E0,
    9.54293611618961883998E-1, 8.64580826352392193095E-2, 4.12656523824222607191E-3, 1.01259085116509135510E-4,
    1.17166733214413521882E-6, 4.91834570062930015649E-9 },
}
local C1, C2, SQPII, MAXAIRY = 0.35502805388781723926, 0.258819403792806798405, 5.64189583547756286948E-1, 103.892

--- torch.special.airyAi(x): the Airy function Ai(x) (PyTorch's special.airy_ai), by Cephes's
--- series and rational approximations in double; 0 above 103.892 as in Cephes. Differentiable.
--- Example: torch.special.airyAi(torch.Tensor({-2, 0, 2}))
function special.airyAi(x)
  local xd, dt = in_double('special.airyAi', x)
  local neg = torch.lt(xd, -2.09)
  local pos = torch.ge(xd, 2.09)
  local mid = torch.logicalNot(torch.logicalOr(neg, pos))
  -- |x| < 2.09: Ai = c1 f(x) - c2 g(x), f and g the two Maclaurin series in x^3.
  local xm = torch.where(mid, xd, 0)
  local z = torch.pow(xm, 3)
  local f, g, uf, ug, k = torch.onesLike(xm), xm, torch.onesLike(xm), xm, 1
  for _ = 1, 25 do
    uf = torch.cmul(uf, z) / (k + 1)
    ug = torch.cmul(ug, z) / (k + 2)
    uf = uf / (k + 2)
    f = f + uf
    ug = ug / (k + 3)
    g = g + ug
    k = k + 3
  end
  local middle = f * C1 - g * C2
  -- x >= 2.09.
  local xp = torch.where(pos, torch.cmin(xd, MAXAIRY), 3)
  local t = torch.sqrt(xp)
  local zeta = torch.cmul(xp, t) * (2 / 3)
  local zi = torch.pow(zeta, -1)
  local ratio = torch.cdiv(poly(zi, AI.AN), poly(zi, AI.AD))
  local right = torch.cdiv(ratio, torch.cmul(torch.sqrt(t), torch.exp(zeta))) * (SQPII / 2)
  right = torch.where(torch.gt(xd, MAXAIRY), 0, right)
  -- x < -2.09.
  local xn = torch.where(neg, xd, -3)
  local tn = torch.sqrt(-xn)
  local zetan = -torch.cmul(xn, tn) * (2 / 3)
  local zn = torch.pow(zetan, -1)
  local zz = torch.cmul(zn, zn)
  local ufn = torch.cmul(zz, torch.cdiv(poly(zz, AI.AFN), poly(zz, AI.AFD, true))) + 1
  local ugn = torch.cmul(zn, torch.cdiv(poly(zz, AI.AGN), poly(zz, AI.AGD, true)))
  local theta = zetan + PIO4
  local left = torch.cmul(torch.cmul(torch.sin(theta), ufn) - torch.cmul(torch.cos(theta), ugn),
    torch.rsqrt(tn)) * SQPII
  local out = torch.where(mid, middle, torch.where(pos, right, left))
  return (to_dtype(torch.where(torch.isnan(xd), xd, out), dt))
end

return special
