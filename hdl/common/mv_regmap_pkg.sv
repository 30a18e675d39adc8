// GENERATED from hdl/common/regmap.json and the design descriptors by
// `montverif generate`. Do not edit: change the sources and regenerate.
package mv_regmap_pkg;
  // Not every design uses every constant of the shared map.
  /* verilator lint_off UNUSEDPARAM */
  localparam int RegmapVersion = 1;
  localparam int RegionW = 4;
  localparam int IndexW = 10;
  localparam int AddrW = 14;
  localparam int CounterW = 32;
  localparam int ErrW = 4;

  // Regions: address = {region, word index}
  localparam logic [RegionW-1:0] RegionCtrl = 4'd0;
  localparam logic [RegionW-1:0] RegionStatus = 4'd1;
  localparam logic [RegionW-1:0] RegionCycles = 4'd2;
  localparam logic [RegionW-1:0] RegionInfo = 4'd3;
  localparam logic [RegionW-1:0] RegionX = 4'd4;
  localparam logic [RegionW-1:0] RegionY = 4'd5;
  localparam logic [RegionW-1:0] RegionM = 4'd6;
  localparam logic [RegionW-1:0] RegionX2 = 4'd7;
  localparam logic [RegionW-1:0] RegionP = 4'd8;
  localparam logic [RegionW-1:0] RegionS = 4'd9;
  localparam logic [RegionW-1:0] RegionC = 4'd10;
  localparam logic [RegionW-1:0] RegionY2 = 4'd11;
  localparam logic [RegionW-1:0] RegionMp = 4'd12;
  localparam logic [RegionW-1:0] RegionMhat = 4'd13;
  localparam logic [RegionW-1:0] RegionR2 = 4'd14;
  localparam logic [RegionW-1:0] RegionE = 4'd15;

  // Register fields (bit positions)
  localparam int CtrlStartLsb = 0;
  localparam int CtrlClearLsb = 1;
  localparam int CtrlFieldLsb = 2;
  localparam int StatusBusyLsb = 0;
  localparam int StatusDoneLsb = 1;
  localparam int StatusErrLsb = 4;
  localparam int StatusErrW = 4;

  // Error codes (STATUS.ERR)
  localparam logic [ErrW-1:0] ErrNone = 4'd0;
  localparam logic [ErrW-1:0] ErrEvenModulus = 4'd1;
  localparam logic [ErrW-1:0] ErrRange = 4'd2;
  localparam logic [ErrW-1:0] ErrBusy = 4'd3;
  localparam logic [ErrW-1:0] ErrUnmapped = 4'd4;

  // Design ids (INFO[23:16])
  localparam int DesignIdMontR2 = 1;
  localparam int DesignIdMontCsa = 2;
  localparam int DesignIdMontLut = 3;
  localparam int DesignIdInterR2 = 4;
  localparam int DesignIdInterCsa = 5;
  localparam int DesignIdInterLut = 6;
  localparam int DesignIdMontCsaU2 = 7;
  localparam int DesignIdMontLutU2 = 8;
  localparam int DesignIdMm42 = 9;
  localparam int DesignIdMm42U2 = 10;
  localparam int DesignIdMwr2mm = 11;
  localparam int DesignIdMwrkmm = 12;
  localparam int DesignIdMontQp = 13;
  localparam int DesignIdMontDual = 14;
  localparam int DesignIdRsaCore = 15;
  localparam int DesignIdMontR4 = 16;
  localparam int DesignIdMontPipe = 17;
  /* verilator lint_on UNUSEDPARAM */
endpackage
