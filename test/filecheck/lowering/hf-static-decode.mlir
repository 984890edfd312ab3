// RUN: ge-opt %s -p ge-O3 | filecheck %s --check-prefix=GE
// RUN: ge-opt %s -p ge-O3,lower-to-ascend,task-parallel,memory-reuse,verify-plan | filecheck %s

// The decode graph of HF generate() with cache_implementation="static",
// unmodified, through torch.compile(backend=npu_graph.get_npu_backend(...)):
// a LlamaForCausalLM of one layer (vocab 16, hidden 8, 2 heads, 1 KV head,
// cache of 5 positions, random weights), dumped by the backend with
// CompilerConfig(graph_dump_path=...) as ge_graph_1.mlir. Regenerate it by
// running that generate() with a 3-token prompt and 3 new tokens.
// HF's StaticCache tensors arrive as arguments; its index_copy_ into the keys
// and values became ge.scatter_update of those arguments, and the position
// counter's update a ge.assign: the GE passes keep all three.
// GE-LABEL: func.func @main(
// GE-SAME:      %l_kwargs_cache_layers_0_cumulative_length: tensor<i64>, %l_kwargs_cache_layers_0_keys: tensor<1x1x5x4xf32>, %l_kwargs_cache_layers_0_values: tensor<1x1x5x4xf32>
// GE:         ge.scatter_update %l_kwargs_cache_layers_0_keys[%{{.*}}], %{{.*}} {{{.*}}dim = 2 : i64} : tensor<1x1x5x4xf32>, tensor<1xi64>, tensor<1x1x1x4xf32> -> tensor<1x1x5x4xf32>
// GE:         ge.scatter_update %l_kwargs_cache_layers_0_values[%{{.*}}], %{{.*}} {{{.*}}dim = 2 : i64} : tensor<1x1x5x4xf32>, tensor<1xi64>, tensor<1x1x1x4xf32> -> tensor<1x1x5x4xf32>
// GE:         ge.assign %l_kwargs_cache_layers_0_cumulative_length, %{{.*}} : tensor<i64>
// GE:         func.return

// Lowered, each update is a task whose output is the caller's cache tensor
// itself, and attention reads the cache arguments: no copy of the cache.
// CHECK-LABEL: func.func @main(
// CHECK:         ascend.task "scatter_update_0" {{.*}} ins(%l_kwargs_cache_layers_0_keys, {{.*}}) outs(%l_kwargs_cache_layers_0_keys : memref<1x1x5x4xf32>)
// CHECK:         ascend.task "scatter_update_1" {{.*}} ins(%l_kwargs_cache_layers_0_values, {{.*}}) outs(%l_kwargs_cache_layers_0_values : memref<1x1x5x4xf32>)
// CHECK:         ascend.task "attention{{.*}}" {{.*}} ins(%l_kwargs_cache_layers_0_keys, %l_kwargs_cache_layers_0_values,
// CHECK:         ascend.task "assign_0" {{.*}} ins(%l_kwargs_cache_layers_0_cumulative_length, %{{.*}}) outs(%l_kwargs_cache_layers_0_cumulative_length : memref<i64>)

builtin.module {
  func.func @main(%l_kwargs_input_ids_: tensor<1x1xi64>, %l_kwargs_position_ids_: tensor<1x1xi64>, %l_kwargs_attention_mask_: tensor<1x1x1x5xi1>, %l_kwargs_cache_layers_0_cumulative_length: tensor<i64>, %l_kwargs_cache_layers_0_keys: tensor<1x1x5x4xf32>, %l_kwargs_cache_layers_0_values: tensor<1x1x5x4xf32>) -> tensor<1x1x16xf32> {
    %_ge_weight = ge.const dense<"0x5E6C3F3C411AAC3C17A1D23CE06C04BD3DF97BBCE1F5C7BC78CD3B3CE11C653C2988A43B737CB63BD713F8BA39ED033DFB771FBB2E6AE4BC873D94BC6C36E3BB5BFE663C3E24203A5AF58BBC5E8F303C2F852CBCD73DDABCC627FD3C09E6053CFB5028BD22542C3CB46E443C57A205BC5872143CAC6100BC64562F3D112387BBB9F500BBF0131F3C57DB673CF3C8613ABAFE0FBC9D8C5DBC15730E3D9F629ABC806EAEBCD08A96BB65D9CDBCA285363CBC964E3B6446A83CCD67C93C2535CDB7EA3C14BD7BF0623CB850C43CFCB9D73CD746E4BB5ED6C53CD44754BC19882C3C17C79BBC0AC42FBD25D0FA3B004406BC890672BCA699073DF3832A3C7E7298BB55FE223C8EFAAF3BC7F8F13CBC84E83B9B18053DE473423C80580DBD73D24BBC370F03B94CAB923C5B7A21B952D46C3AF0D63D3CD3A301BD959B40BC336615BBD8D8653CA00F36BC8225FABB72F767BABD412A3C3010793C96A2A8BCC9DDCCBC440515BBCA3349BCBCC18B3C574A4B3BBD31B53CAD50B33CF8DD3A3C4A667E3CB94DDEBCFECD7ABCC9FC88BB60CAADBB33E37EBCAA8FE63C25EE73BD93FB3CBB84408BBCE72FC3BBA06D2E3D42BC243C405791BCDBA0233D87210BBDD4335CBCDC9879BCC9D61CBD00CAB7BC1BC645BC782946BD973F96BC59FA653C0EC277BC8AA4F63B52CEB83C0F9AE539A0BBF43CF79D33BD9DF40EBB928700BD12E2363C"> : tensor<16x8xf32>
    %_ge_weight_1 = ge.const dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf32>
    %cst = ge.const dense<1.000000e+00> : tensor<f32>
    %cst_1 = ge.const dense<2.000000e+00> : tensor<f32>
    %cst_2 = ge.const dense<1.000000e-06> : tensor<f32>
    %_ge_weight_2 = ge.const dense<1.000000e+00> : tensor<8xf32>
    %_ge_weight_3 = ge.const dense<[[-0.0213093925, 0.00805155188, -0.00810483284, -0.0116673233, -0.00517045148, -0.0121111888, -0.00376484566, 0.0191921331], [0.0136001855, -0.0153844161, -0.00145767198, -0.0288669206, -0.0252451636, 0.0117636165, -0.0175311193, -0.0207053181], [-0.0243044291, -0.00339255226, 0.0116456104, 0.0377941616, 0.00541496929, 0.0146028949, -0.025602404, -0.00716358703], [-0.00122518814, 0.0267811045, -0.0211779904, 8.318550e-03, -0.0156023866, -0.000488453195, -0.0188903641, 0.00152172602], [0.0622923449, -0.0162153542, -0.0221041646, -0.0144661302, 0.0157646276, 0.0272905361, 0.00747302687, -0.0200086776], [3.11907752e-05, -0.00263117766, 0.00206297054, -0.00739588169, -0.0142319137, -0.00240599248, 0.0247661639, 0.00397046236], [-0.0159701686, 0.00552097615, 0.00196378096, 0.0496418364, -0.0240134727, 0.0204191506, -0.00773943448, -0.00113776955], [-0.00546889193, -0.0012210767, 0.010641776, -0.0179436654, -0.0260331202, -0.0274565052, 0.0338186473, -0.00924399402]]> : tensor<8x8xf32>
    %_ge_weight_4 = ge.const dense<[[0.00407170132, -0.0206565727, 0.0226096157, -0.0114060258, -0.04201876, 0.0077984496, 0.00174686976, -0.0171471965], [-0.00549232122, 0.00886424165, 0.019182194, 0.0266390629, 0.0154662235, 0.061133936, -0.0497560576, -0.0339234956], [-0.00101934792, 0.0278513767, 0.0459508449, 0.0105450936, 0.00302763842, 0.0103764879, -0.0117924185, 0.0200136043], [-0.0263486244, 0.000112003712, 0.0113576613, -0.0283840653, -0.00645268662, 0.00320253964, -0.0296712462, 0.0164674819]]> : tensor<4x8xf32>
    %_ge_weight_5 = ge.const dense<[[0.0203326885, 0.0257350709, 0.041640155, 0.00233486178, -0.00296458416, 0.017861072, -0.0152366357, -0.0307757612], [-0.0356912948, 0.0139097711, -0.0491238832, 0.000413948321, -0.00250635948, 0.0337247849, 0.045524776, -0.0191356577], [0.0142896688, 0.0168891083, 0.00139866956, 0.000124662009, -0.0281106029, 0.0023890452, -0.0066244239, -0.0168147031], [0.00922236312, 0.012319345, -0.00438075792, -0.00481330045, -0.0125019131, 0.0163229834, -0.0114213843, -0.00238905638]]> : tensor<4x8xf32>
    %arange = ge.const dense<0> : tensor<1xi64>
    %cst_3 = ge.const dense<1> : tensor<i64>
    %cst_4 = ge.const dense<5.000000e-01> : tensor<f32>
    %cst_5 = ge.const dense<0xff800000> : tensor<f32>
    %_ge_weight_6 = ge.const dense<[[-0.00854721572, 1.628650e-02, -0.0282415263, -0.0019954741, 0.00149872387, 0.0118064461, 0.00797112845, -0.0127178114], [-0.0070770774, -0.0219799541, -0.0410869792, -0.00161324861, -1.07067654e-05, -0.0229087938, 0.0401216224, -0.00354096666], [-0.030293392, 0.0214991048, 0.00101529877, -0.0331148766, -0.00922976248, 0.000761540607, -0.0264809635, 0.0110965306], [-0.014454525, 0.0424423069, 9.992920e-04, 0.00904255081, 0.0162913986, -0.00278837653, -0.00735340826, -0.00914709177], [-0.0258909967, 0.014023738, -0.0381953157, 0.0210762694, -0.0209461357, 0.00450230762, 0.0135966558, 0.0105773509], [0.00708448794, 0.0116104018, 0.000738040661, 0.0124605149, 0.0167951584, -0.0176396929, 0.0193009023, 0.017376652], [0.0177596938, -0.0184956919, 0.00648192922, -0.0163792055, 0.00724835135, 0.00444229739, 0.00558063481, -0.00630346825], [-0.00802071579, 0.00431435602, 0.0257075764, -0.0207718983, -0.0326792374, 0.0107485335, 0.0216522589, -0.0342093669]]> : tensor<8x8xf32>
    %_ge_weight_7 = ge.const dense<1.000000e+00> : tensor<8xf32>
    %_ge_weight_8 = ge.const dense<"0xB79DB1BC53BD28BBE72C5FBC059DD6BC665B583C355AE7BCF449163D667C153C7037B43BA199823B67040F3BEA1D8ABC4F4D463C7DE2D73C3279AF3C722AC8BC05114E3CD209A63CA4FA82BC47B724BBC67C5D3CEF4F8D3C8F31133DDE06F7BCA7B5BE3A04CD3BBD5901303CAE5F5F3CCB28F5BC00F8A0BC3D676B3CA73F103CE11F38BC2E90593CED4D2CBD20CE8F3CA1719BBBA343003D337ABBBCDE2D5ABD850A2E3D5754E33C38F6843CC58B553B74285CBC99AD0ABDB21DB0BCADF98B3C8DCE41BC48160B3C772ECBBC1D43B9BA04ADA5BA4DFA413C590012BCBEB7C7BCFC23FEBC72CA1A3C596860BDABB1073A199B80BBDB2180BCCD5D2FBD29B8DA3B41FDB7BCA27A4B3CA5968FBC885311BDA1C584BC55D2F1BC18925A3C55275B3C4B1EC5BA675A573B502E103A447C3E3CCCFF993B2095AF3C25552BBC345A6CBC33E086BB288284BCB242183CC147003CFEA4DBBCB7EB783C87CF6E3C5CF1AEBA2528363CEC9FE6BC5F00113BB57C383A99FE38BCF60E963CDBF0C33B0A1E683BEA64E1BBD924963B29110F3CC110B13B943783BB9BDBA63CD79E08BC2B5D21BA4B51A1BC4CA1843B4B31083C7537C5BC9CB72EBB6649C0BB2756183C3ED33C3C3B7697BA78F1BF3C59CAF8BCDE2F793A0A4E58B9D02AEB3CC7FCA43BB7C0723CC1EBB3BCB2E24A3B1D31E5BCFBED553AFE13B7BC2557663CFDB75ABC5057243B"> : tensor<16x8xf32>
    %_ge_weight_9 = ge.const dense<"0x8F9D043CB79B56BCF9A3883AD5DBDE3B89358BBBBC08003D02A194BC494D00BD8E877E3A98C6A23C18812D3D787B6FBB868E7EBC5E86113D0DEA24BC764F943AE79833BCBEAA62BCCFF056BC93B6633CB80B19BC14245CBB6189783C0AA7C23CF0964EBC0975ABBA49C44A3C2B00243DB47CC13B071F2E3CA2472BBC5463023B4B3319BB6955F43BF04BA7BC12DCB03CB9E8BB3C332363BB6A04A73A2710D0BC938B4BBC85069CBB82D9E93A8384133D1CF928BD2923D33BB09EBABCB574CB3C06D1F8BCF3B0C43CA4DC11BC983A823AD28863BB45537B3C6D834A3CB28C643DDBBA0D3CAE862E3D8EE5503D2B1EC43BDC463FBC004FD53B76A82E3BE8AF233B1519F5BC1D2BBF39FD7DE23B1D9C233A2F33033C96830B3CE68B893C1CFDCA3C6EAC2B3C93DA07BDAAAD333CD519E5BC69E821BD66EEC93C29C632BCE0F6B5BA23F16F3C620B45BB8EB667BC8430193C53A2B63B6CD6DA3C5249BD3CEF9493BA9D1A0D3CF7CD98BCA7A1F6BC766B073BA14BF93C4788EF3B951DEA3CF4C4EE3B5BEF093DF694A53C4DC84B3CA6293B3D2604013D877FCBBB320FF53C6564A43C5984EBBC46F4613A9CCD06BD90F7EFBC8577E53BF9CF0ABB30A572BC0FADBD3C9C7BEC3CD105823B9912B5BC66E126BD7D632E3D32FE85BB9E81193CD733C53C137BCD3BDFDE013D4506903CEC47613DFB7E2ABC50A93BBDA6299EBC22251BBD"> : tensor<16x8xf32>
    %_ge_weight_10 = ge.const dense<"0xF7B2E2BB153A4B3CE4D5623C981C743C0F5E98BC9D6960BC89714E3C8E511F3D0286FE3B9CED903CA02CB5BCBB2EC4BC67B2E53C8DF5223C8FCB5E3C849FB53CE222843C4E1D49BB78EAB3BB7C1DBB3B3B83A43CEE8BC1BC962C093DDFEA12BDE54FD4BC343A84BC789B2D3D05D8EA3B1C32E23B674473BB1E4D50BBC59CC73CEE80B7BC965A16BCE1D7D3BC77AFB03C3388183B184FB03B0B2A1ABDD9D032BCB9A2913B8931BDBB55505B3C66DBF43CAAFBFE39AF1F23BC9CC5713CE51AD13C92C14ABB9C7EBABB5C524EBC66E5A2BB96FF833C2288B4BCFCC072BC4C04873CEBB39BBCDC0C583C39E260BC4B24BFBB0B2F193D011AB5BC45FA3CBB14ECE2BB5DBD863CB0209A3C27E334BD6B50093CE8ECA2BB3467DCBCAA88C4BBCEC133BD8223C7BBA61D89BB64A55F3C8FAA29BB8BF2C63CC6F04B3D2A3974BCBF900CBDFB02E03C6D54343D4B98383B89806C3C3E61F03C7E3AEEBCA9D405BD52FF72BC3C5CAD3C3DAF02BDFEBD4D3C62AEFCBC5D1D903B1EF08F3C0EA78EBA67D712BCCE56BD3CC5BED73C64F5B0BCA0EF53BC7843C03CFDE1FF3B8E0AB5BCB68E8A3C4E7A19BCBCA351BCF226F33A33A5CA3C7BA3773DAC241FBC5E289F3B19ED4CBBE6610ABDC790DA3C4F7B243D37BE99BB1606B0BC704C83BCDFC7913C6EE8B8BBF25D1ABCC4111F3D9C34643CA7353CBCC08B9DBC5FFC92BBEE00E7BCB482AE3C"> : tensor<8x16xf32>
    %_ge_weight_11 = ge.const dense<1.000000e+00> : tensor<8xf32>
    %_ge_weight_12 = ge.const dense<"0xAF547CBCCF3FC03C19C002BD1970843C447B083C121194BBAFD5D2BBE91D12BD9469193CB56091BC4FDFD8BA1267853CBDA85D3DC1662EBC52C1F53CAFA709BD89CE4BBDB3A7C7BC3D2DA8BBF5ECE43C185EEC3AE6D3E03A0F0B12BCD396EA3B0B3E19BDEB1D8CBC920CAF3C5DD1FB3A493760BC57B7023CEDFAA83B626D823B4CA04FBBB72A723CF63AA4BB1B6081BBBEB122BD87634EBCDE22483CD38439BB41CF5FBC0F03E33C640DD6BA9C8E5ABCF90A173C64B903BC6599383CCDEF98BC025B1ABCB288ABBC5D6D0B3C1835FEBCE6C6F53C2994A4BC19BC86B95B3A81BC4172ED3CE40E983BA3C3FFB84A51F1B99331B73CD685993B8FA105BD7003D53C3DC59C3BF5D416BD72D80ABD582FA6BC9D0712BCE94577BC21F6BA3C9CB369BCCEA0643C4187C6BC24F336BB16E888BBA045BA3C499180BC8A39803C46B19FBCCB88C53CF305713BA77BB53B590F08BCD960973B55ED6F3B7BE208BC136241BDA942C8BCD436AFBC6D1003BC02F9B3BC185CBDBCF57DD6BB39EEF63BA33BA33C7DB5B53C6783BA3C2BA5013C1DD11E3C9B7DE93C897535BD58FEA9BB2BCA52BC666F05BD8639C43B3B401C3C0478973A5759A3BC321CA53ADB332A3DC469BDBCA94E89BCDB4ABD387D99D8BAAF27BBBC6F9D273CADD2B33B692CCEBC4C13763CE19B8FBBCA014E3C3C60FBBCBC6A64BC07448A3B5C2C333CF856A9BCD9241DBD"> : tensor<16x8xf32>
    %embedding = ge.embedding %_ge_weight, %l_kwargs_input_ids_ : tensor<16x8xf32>, tensor<1x1xi64> -> tensor<1x1x8xf32>
    %unsqueeze = ge.reshape %l_kwargs_position_ids_ : tensor<1x1xi64> -> tensor<1x1x1xi64>
    %to = ge.cast %unsqueeze : tensor<1x1x1xi64> -> tensor<1x1x1xf32>
    %mul = ge.mul %to, %_ge_weight_1 : tensor<1x1x1xf32>, tensor<2xf32> -> tensor<1x1x2xf32>
    %cat = ge.concat %mul, %mul {dim = -1 : i64} : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x4xf32>
    %cos = ge.cos %cat : tensor<1x1x4xf32>
    %mul_1 = ge.mul %cos, %cst : tensor<1x1x4xf32>, tensor<f32> -> tensor<1x1x4xf32>
    %sin = ge.sin %cat : tensor<1x1x4xf32>
    %mul_2 = ge.mul %sin, %cst : tensor<1x1x4xf32>, tensor<f32> -> tensor<1x1x4xf32>
    %pow = ge.pow %embedding, %cst_1 : tensor<1x1x8xf32>, tensor<f32> -> tensor<1x1x8xf32>
    %mean = ge.reduce_mean %pow {dims = array<i64: -1>, keepdim = true} : tensor<1x1x8xf32> -> tensor<1x1x1xf32>
    %add = ge.add %mean, %cst_2 : tensor<1x1x1xf32>, tensor<f32> -> tensor<1x1x1xf32>
    %rsqrt = ge.rsqrt %add : tensor<1x1x1xf32>
    %mul_3 = ge.mul %embedding, %rsqrt : tensor<1x1x8xf32>, tensor<1x1x1xf32> -> tensor<1x1x8xf32>
    %mul_4 = ge.mul %_ge_weight_2, %mul_3 : tensor<8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8xf32>
    %linear = ge.linear %mul_4, %_ge_weight_3 : tensor<1x1x8xf32>, tensor<8x8xf32> -> tensor<1x1x8xf32>
    %view = ge.reshape %linear : tensor<1x1x8xf32> -> tensor<1x1x2x4xf32>
    %transpose = ge.transpose %view {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x4xf32> -> tensor<1x2x1x4xf32>
    %linear_1 = ge.linear %mul_4, %_ge_weight_4 : tensor<1x1x8xf32>, tensor<4x8xf32> -> tensor<1x1x4xf32>
    %view_1 = ge.reshape %linear_1 : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
    %transpose_1 = ge.transpose %view_1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
    %linear_2 = ge.linear %mul_4, %_ge_weight_5 : tensor<1x1x8xf32>, tensor<4x8xf32> -> tensor<1x1x4xf32>
    %view_2 = ge.reshape %linear_2 : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
    %transpose_2 = ge.transpose %view_2 {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
    %unsqueeze_1 = ge.reshape %mul_1 : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
    %unsqueeze_2 = ge.reshape %mul_2 : tensor<1x1x4xf32> -> tensor<1x1x1x4xf32>
    %mul_5 = ge.mul %transpose, %unsqueeze_1 : tensor<1x2x1x4xf32>, tensor<1x1x1x4xf32> -> tensor<1x2x1x4xf32>
    %slice = ge.slice %transpose {dim = 3 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<1x2x1x4xf32> -> tensor<1x2x1x2xf32>
    %slice_1 = ge.slice %transpose {dim = 3 : i64, start = 2 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<1x2x1x4xf32> -> tensor<1x2x1x2xf32>
    %neg = ge.neg %slice_1 : tensor<1x2x1x2xf32>
    %cat_1 = ge.concat %neg, %slice {dim = -1 : i64} : (tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x1x4xf32>
    %mul_6 = ge.mul %cat_1, %unsqueeze_2 : tensor<1x2x1x4xf32>, tensor<1x1x1x4xf32> -> tensor<1x2x1x4xf32>
    %add_1 = ge.add %mul_5, %mul_6 : tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32> -> tensor<1x2x1x4xf32>
    %mul_7 = ge.mul %transpose_1, %unsqueeze_1 : tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
    %slice_2 = ge.slice %transpose_1 {dim = 3 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : tensor<1x1x1x4xf32> -> tensor<1x1x1x2xf32>
    %slice_3 = ge.slice %transpose_1 {dim = 3 : i64, start = 2 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<1x1x1x4xf32> -> tensor<1x1x1x2xf32>
    %neg_1 = ge.neg %slice_3 : tensor<1x1x1x2xf32>
    %cat_2 = ge.concat %neg_1, %slice_2 {dim = -1 : i64} : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x4xf32>
    %mul_8 = ge.mul %cat_2, %unsqueeze_2 : tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
    %add_2 = ge.add %mul_7, %mul_8 : tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32> -> tensor<1x1x1x4xf32>
    %add_3 = ge.add %arange, %l_kwargs_cache_layers_0_cumulative_length : tensor<1xi64>, tensor<i64> -> tensor<1xi64>
    %add_ = ge.add %l_kwargs_cache_layers_0_cumulative_length, %cst_3 : tensor<i64>, tensor<i64> -> tensor<i64>
    %index_copy_ = ge.scatter_update %l_kwargs_cache_layers_0_keys[%add_3], %add_2 {dim = 2 : i64} : tensor<1x1x5x4xf32>, tensor<1xi64>, tensor<1x1x1x4xf32> -> tensor<1x1x5x4xf32>
    %index_copy__1 = ge.scatter_update %l_kwargs_cache_layers_0_values[%add_3], %transpose_2 {dim = 2 : i64} : tensor<1x1x5x4xf32>, tensor<1xi64>, tensor<1x1x1x4xf32> -> tensor<1x1x5x4xf32>
    %unsqueeze_3 = ge.reshape %index_copy_ : tensor<1x1x5x4xf32> -> tensor<1x1x1x5x4xf32>
    %expand = ge.expand %unsqueeze_3 : tensor<1x1x1x5x4xf32> -> tensor<1x1x2x5x4xf32>
    %reshape = ge.flatten %expand {start_dim = 0 : i64, end_dim = 1 : i64} : tensor<1x1x2x5x4xf32> -> tensor<1x2x5x4xf32>
    %unsqueeze_4 = ge.reshape %index_copy__1 : tensor<1x1x5x4xf32> -> tensor<1x1x1x5x4xf32>
    %expand_1 = ge.expand %unsqueeze_4 : tensor<1x1x1x5x4xf32> -> tensor<1x1x2x5x4xf32>
    %reshape_1 = ge.flatten %expand_1 {start_dim = 0 : i64, end_dim = 1 : i64} : tensor<1x1x2x5x4xf32> -> tensor<1x2x5x4xf32>
    %scaled_dot_product_attention_kt = ge.transpose %reshape {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x4xf32> -> tensor<1x2x4x5xf32>
    %scaled_dot_product_attention_qk = ge.matmul %add_1, %scaled_dot_product_attention_kt : tensor<1x2x1x4xf32>, tensor<1x2x4x5xf32> -> tensor<1x2x1x5xf32>
    %scaled_dot_product_attention_scaled = ge.mul %scaled_dot_product_attention_qk, %cst_4 : tensor<1x2x1x5xf32>, tensor<f32> -> tensor<1x2x1x5xf32>
    %scaled_dot_product_attention_masked = ge.where %l_kwargs_attention_mask_, %scaled_dot_product_attention_scaled, %cst_5 : tensor<1x1x1x5xi1>, tensor<1x2x1x5xf32>, tensor<f32> -> tensor<1x2x1x5xf32>
    %scaled_dot_product_attention_softmax = ge.softmax %scaled_dot_product_attention_masked {dim = -1 : i64, safe} : tensor<1x2x1x5xf32>
    %scaled_dot_product_attention = ge.matmul %scaled_dot_product_attention_softmax, %reshape_1 : tensor<1x2x1x5xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x1x4xf32>
    %transpose_3 = ge.transpose %scaled_dot_product_attention {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x1x4xf32> -> tensor<1x1x2x4xf32>
    %reshape_2 = ge.flatten %transpose_3 {start_dim = 2 : i64, end_dim = -1 : i64} : tensor<1x1x2x4xf32> -> tensor<1x1x8xf32>
    %linear_3 = ge.linear %reshape_2, %_ge_weight_6 : tensor<1x1x8xf32>, tensor<8x8xf32> -> tensor<1x1x8xf32>
    %add_4 = ge.add %embedding, %linear_3 : tensor<1x1x8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8xf32>
    %pow_1 = ge.pow %add_4, %cst_1 : tensor<1x1x8xf32>, tensor<f32> -> tensor<1x1x8xf32>
    %mean_1 = ge.reduce_mean %pow_1 {dims = array<i64: -1>, keepdim = true} : tensor<1x1x8xf32> -> tensor<1x1x1xf32>
    %add_5 = ge.add %mean_1, %cst_2 : tensor<1x1x1xf32>, tensor<f32> -> tensor<1x1x1xf32>
    %rsqrt_1 = ge.rsqrt %add_5 : tensor<1x1x1xf32>
    %mul_9 = ge.mul %add_4, %rsqrt_1 : tensor<1x1x8xf32>, tensor<1x1x1xf32> -> tensor<1x1x8xf32>
    %mul_10 = ge.mul %_ge_weight_7, %mul_9 : tensor<8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8xf32>
    %linear_4 = ge.linear %mul_10, %_ge_weight_8 : tensor<1x1x8xf32>, tensor<16x8xf32> -> tensor<1x1x16xf32>
    %silu = ge.silu %linear_4 : tensor<1x1x16xf32>
    %linear_5 = ge.linear %mul_10, %_ge_weight_9 : tensor<1x1x8xf32>, tensor<16x8xf32> -> tensor<1x1x16xf32>
    %mul_11 = ge.mul %silu, %linear_5 : tensor<1x1x16xf32>, tensor<1x1x16xf32> -> tensor<1x1x16xf32>
    %linear_6 = ge.linear %mul_11, %_ge_weight_10 : tensor<1x1x16xf32>, tensor<8x16xf32> -> tensor<1x1x8xf32>
    %add_6 = ge.add %add_4, %linear_6 : tensor<1x1x8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8xf32>
    %pow_2 = ge.pow %add_6, %cst_1 : tensor<1x1x8xf32>, tensor<f32> -> tensor<1x1x8xf32>
    %mean_2 = ge.reduce_mean %pow_2 {dims = array<i64: -1>, keepdim = true} : tensor<1x1x8xf32> -> tensor<1x1x1xf32>
    %add_7 = ge.add %mean_2, %cst_2 : tensor<1x1x1xf32>, tensor<f32> -> tensor<1x1x1xf32>
    %rsqrt_2 = ge.rsqrt %add_7 : tensor<1x1x1xf32>
    %mul_12 = ge.mul %add_6, %rsqrt_2 : tensor<1x1x8xf32>, tensor<1x1x1xf32> -> tensor<1x1x8xf32>
    %mul_13 = ge.mul %_ge_weight_11, %mul_12 : tensor<8xf32>, tensor<1x1x8xf32> -> tensor<1x1x8xf32>
    %slice_4 = ge.slice %mul_13 {dim = 1 : i64, start = -1 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : tensor<1x1x8xf32> -> tensor<1x1x8xf32>
    %linear_7 = ge.linear %slice_4, %_ge_weight_12 : tensor<1x1x8xf32>, tensor<16x8xf32> -> tensor<1x1x16xf32>
    %0 = ge.assign %l_kwargs_cache_layers_0_cumulative_length, %add_ : tensor<i64>
    func.return %linear_7 : tensor<1x1x16xf32>
  }
}
