package main

import "github.com/pipelab/pipelab/request"

// The command line's flag kit lives in package request (cli_*.go), which
// decodes the served commands' flags for the command line and the server
// alike; these are its names here.
type (
	outputFlag    = request.OutputFlag
	costFlags     = request.CostFlags
	zbAutoLimits  = request.ZBAutoLimits
	shapeFlags    = request.ShapeFlags
	presetFlags   = request.PresetFlags
	measuredFlags = request.MeasuredFlags
	fileFlag      = request.FileFlag
	helpRequest   = request.HelpRequest
	kindItem      = request.KindItem
	fileUse       = request.FileUse
)

const (
	readsFile         = request.ReadsFile
	formatYAML        = request.FormatYAML
	formatText        = request.FormatText
	formatJSON        = request.FormatJSON
	formatCSV         = request.FormatCSV
	zbAutoSummary     = request.ZBAutoSummary
	writesFile        = request.WritesFile
	wgradMemoryUsage  = request.WgradMemoryUsage
	replayCellBytes   = request.ReplayCellBytes
	compareCellBytes  = request.CompareCellBytes
	simulateCellBytes = request.SimulateCellBytes
	scheduleCellBytes = request.ScheduleCellBytes
)

var (
	flagProblem       = request.FlagProblem
	newFlags          = request.NewFlags
	parseFlags        = request.ParseFlags
	noArguments       = request.NoArguments
	setFlags          = request.SetFlags
	required          = request.Required
	markFiles         = request.MarkFiles
	firstError        = request.FirstError
	gb                = request.GB
	atLeast           = request.AtLeast
	writeOutputFile   = request.WriteOutputFile
	readScheduleFile  = request.ReadScheduleFile
	parseKinds        = request.ParseKinds
	orList            = request.OrList
	isHelp            = request.IsHelp
	guardTune         = request.GuardTune
	zbAutoTable       = request.ZBAutoTable
	userText          = request.UserText
	unknownFamily     = request.UnknownFamily
	tableName         = request.TableName
	readScheduleInput = request.ReadScheduleInput
	oneLine           = request.OneLine
	missingFolder     = request.MissingFolder
	guardShape        = request.GuardShape
	errWgradMemoryGPU = request.ErrWgradMemoryGPU
	errUsage          = request.ErrUsage
	errParsedOnly     = request.ErrParsedOnly
	count             = request.Count
	checkWgradMemory  = request.CheckWgradMemory
	checkOutputFolder = request.CheckOutputFolder
	inRange           = request.InRange
	familyNames       = request.FamilyNames
	printFlags        = request.PrintFlags
	flagLine          = request.FlagLine
	flagError         = request.FlagError
	seeHelp           = request.SeeHelp
)
